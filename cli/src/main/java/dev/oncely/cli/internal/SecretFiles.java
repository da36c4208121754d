package dev.oncely.cli.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Refuses secret files (a store key, a database password) that others can read or write, like
 * libpq does with {@code ~/.pgpass}: a secret in a group- or world-readable file has already
 * leaked. File systems without POSIX permissions are not checked.
 */
final class SecretFiles {
  private static final Set<PosixFilePermission> OTHERS = Set.of(
      PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE,
      PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ,
      PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

  private SecretFiles() {}

  /**
   * Checks that only the owner can use {@code file}.
   *
   * @param what how the message names the file, e.g. "the key file"
   * @throws CliException a usage error naming the permissions and the {@code chmod} that fixes
   *     them, or a failure if the permissions cannot be read
   */
  static void checkOwnerOnly(Path file, String what) {
    Set<PosixFilePermission> permissions;
    try {
      permissions = Files.getPosixFilePermissions(file);
    } catch (UnsupportedOperationException e) {
      return;
    } catch (IOException e) {
      throw CliException.failure("cannot read " + what + " " + file + ": " + e.getMessage(), e);
    }
    if (permissions.stream().anyMatch(OTHERS::contains)) {
      throw CliException.usage(what + " " + file + " can be read or written by others ("
          + PosixFilePermissions.toString(permissions) + "); make it owner-only: chmod 600 " + file);
    }
  }
}
