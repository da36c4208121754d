package dev.oncely.persistence;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.spi.IntentStoreContract;
import java.nio.file.Path;

/**
 * A child JVM started under a file-size limit ({@code ulimit -f}): creates records with large
 * bodies until the store refuses one, then checks reads still work and closes. Prints
 * {@code ACK <n>}, then {@code FAILED <exception class> <message>}, {@code READ-OK},
 * {@code CLOSED} or {@code CLOSE-FAILED <exception>}.
 */
public final class DiskFullChild {
  private DiskFullChild() {}

  public static void main(String[] args) {
    Path path = Path.of(args[0]);
    byte[] body = new byte[Integer.parseInt(args[1])];
    SqliteIntentStore store = SqliteIntentStore.open(path);
    int n = 0;
    try {
      for (; n < 100_000; n++) {
        store.create(record(n, body));
        System.out.println("ACK " + n);
      }
    } catch (RuntimeException e) {
      System.out.println("FAILED " + e.getClass().getName() + " "
          + String.valueOf(e.getMessage()).replace('\n', ' '));
    }
    if (n > 0 && store.get(record(0, body).id()).isPresent()) {
      System.out.println("READ-OK");
    }
    try {
      store.close();
      System.out.println("CLOSED");
    } catch (RuntimeException e) {
      System.out.println("CLOSE-FAILED " + e.getClass().getName());
    }
  }

  static IntentRecord record(int n, byte[] body) {
    return IntentStoreContract.newRecord("s", "op", "big-" + n).toBuilder()
        .body(body, "application/octet-stream").build();
  }
}
