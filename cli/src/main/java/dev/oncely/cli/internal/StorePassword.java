package dev.oncely.cli.internal;

import dev.oncely.cli.StoreCredentials;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Set;

/**
 * Reads a database password from an owner-only file (its first line) or an environment variable,
 * never from the command line, and never prints it. Without either, the PostgreSQL convention
 * {@value #DEFAULT_ENV} is used when set.
 */
final class StorePassword {
  static final String DEFAULT_ENV = "PGPASSWORD";

  private static final Set<PosixFilePermission> OTHERS = Set.of(
      PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE,
      PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ,
      PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

  private StorePassword() {}

  static StoreCredentials fromFile(Path file) {
    checkOwnerOnly(file);
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
    try {
      return StoreCredentials.password(password);
    } finally {
      Arrays.fill(password, '\0');
    }
  }

  static StoreCredentials fromEnv(CliContext context, String variable) {
    String value = context.env(variable);
    if (value == null || value.isEmpty()) {
      throw CliException.usage("environment variable " + variable + " is not set");
    }
    return StoreCredentials.password(value.toCharArray());
  }

  /** {@value #DEFAULT_ENV} when set, otherwise no password. */
  static StoreCredentials fromDefault(CliContext context) {
    String value = context.env(DEFAULT_ENV);
    return value == null || value.isEmpty()
        ? StoreCredentials.none() : StoreCredentials.password(value.toCharArray());
  }

  /** Like libpq with {@code ~/.pgpass}: a password file others can read is refused. */
  private static void checkOwnerOnly(Path file) {
    Set<PosixFilePermission> permissions;
    try {
      permissions = Files.getPosixFilePermissions(file);
    } catch (UnsupportedOperationException e) {
      return;
    } catch (IOException e) {
      throw CliException.failure("cannot read the password file " + file + ": " + e.getMessage(), e);
    }
    if (permissions.stream().anyMatch(OTHERS::contains)) {
      throw CliException.usage("the password file " + file + " can be read or written by others ("
          + PosixFilePermissions.toString(permissions) + "); make it owner-only: chmod 600 " + file);
    }
  }
}
