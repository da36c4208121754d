package dev.oncely.cli.internal;

import dev.oncely.client.spi.StoreEncryption;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Reads the app's 32-byte store key from a file or an environment variable: raw bytes, hex (64
 * characters) or Base64 (44 characters), surrounding whitespace ignored. Never prints the key. A
 * key file others can read or write is refused.
 */
final class StoreKey {
  private StoreKey() {}

  static StoreEncryption fromFile(Path file) {
    SecretFiles.checkOwnerOnly(file, "the key file");
    byte[] content;
    try {
      content = Files.readAllBytes(file);
    } catch (IOException e) {
      throw CliException.failure("cannot read the key file " + file + ": " + e.getMessage(), e);
    }
    try {
      if (content.length == StoreEncryption.KEY_BYTES) {
        return StoreEncryption.aes256Gcm(content);
      }
      return decode(new String(content, StandardCharsets.US_ASCII), "the key file " + file);
    } finally {
      Arrays.fill(content, (byte) 0);
    }
  }

  static StoreEncryption fromEnv(CliContext context, String variable) {
    String value = context.env(variable);
    if (value == null || value.isBlank()) {
      throw CliException.usage("environment variable " + variable + " is not set");
    }
    return decode(value, "environment variable " + variable);
  }

  private static StoreEncryption decode(String text, String source) {
    String value = text.strip();
    byte[] key = null;
    try {
      if (value.length() == 2 * StoreEncryption.KEY_BYTES) {
        key = HexFormat.of().parseHex(value);
      } else {
        key = Base64.getDecoder().decode(value);
      }
    } catch (IllegalArgumentException e) {
      key = null;
    }
    if (key == null || key.length != StoreEncryption.KEY_BYTES) {
      throw CliException.usage(source + " does not hold a " + StoreEncryption.KEY_BYTES
          + "-byte key (raw bytes, 64 hex characters or Base64)");
    }
    try {
      return StoreEncryption.aes256Gcm(key);
    } finally {
      Arrays.fill(key, (byte) 0);
    }
  }
}
