package dev.oncely.android.internal;

import android.database.sqlite.SQLiteProgram;
import java.util.List;

/**
 * Binds the parameters of a shared statement ({@link dev.oncely.client.spi.sql.IntentSql}) to the
 * framework's statements and queries.
 */
public final class SqlParameters {
  private SqlParameters() {}

  /**
   * Binds {@code parameters} to {@code program} from the first on: a {@code byte[]} as a BLOB, a
   * {@link Long} as an INTEGER, null as NULL (the value kinds of {@link
   * dev.oncely.client.spi.sql.IntentRow}).
   *
   * @throws IllegalArgumentException if a value is of another kind
   */
  public static void bind(SQLiteProgram program, List<?> parameters) {
    for (int i = 0; i < parameters.size(); i++) {
      Object value = parameters.get(i);
      if (value == null) {
        program.bindNull(i + 1);
      } else if (value instanceof byte[]) {
        program.bindBlob(i + 1, (byte[]) value);
      } else if (value instanceof Long) {
        program.bindLong(i + 1, (Long) value);
      } else {
        throw new IllegalArgumentException("parameter " + (i + 1) + " is a " + value.getClass());
      }
    }
  }
}
