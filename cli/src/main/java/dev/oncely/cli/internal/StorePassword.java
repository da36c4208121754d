package dev.oncely.cli.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Reads a database password from an owner-only file (its first line) or an environment variable,
 * never from the command line, and never prints it. Without either, the PostgreSQL convention
 * {@value #DEFAULT_ENV} is used when set. A password is never empty; the caller owns the array
 * returned and clears it once the store is open.
 */
final class StorePassword {
  static final String DEFAULT_ENV = "PGPASSWORD";

  private StorePassword() {}

  static char[] fromFile(Path file) {
    SecretFiles.checkOwnerOnly(file, "the password file");
    byte[] content;
    try {
      content = Files.readAllBytes(file);
    } catch (IOException e) {
      throw CliException.failure("cannot read the password file " + file + ": " + e.getMessage(), e);
    }
    int end = 0;
    while (end < content.length && content[end] != '\n' && content[end] != '\r') {
      end++;
    }
    char[] password;
    try {
      CharBuffer chars = StandardCharsets.UTF_8.newDecoder()
          .decode(ByteBuffer.wrap(content, 0, end));
      password = Arrays.copyOf(chars.array(), chars.limit());
      Arrays.fill(chars.array(), '\0');
    } catch (CharacterCodingException e) {
      throw CliException.usage("the password file " + file + " is not UTF-8 text");
    } finally {
      Arrays.fill(content, (byte) 0);
    }
    if (password.length == 0) {
      throw CliException.usage("the password file " + file + " is empty (the password is its"
          + " first line)");
    }
    return password;
  }

  static char[] fromEnv(CliContext context, String variable) {
    String value = context.env(variable);
    if (value == null || value.isEmpty()) {
      throw CliException.usage("environment variable " + variable + " is not set");
    }
    return value.toCharArray();
  }

  /** {@value #DEFAULT_ENV} when set, otherwise null: no password. */
  static char[] fromDefault(CliContext context) {
    String value = context.env(DEFAULT_ENV);
    return value == null || value.isEmpty() ? null : value.toCharArray();
  }
}
