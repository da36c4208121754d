package dev.oncely.android;

import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.IntentStoreContract;
import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.ParameterizedRobolectricTestRunner.Parameters;
import org.robolectric.ParameterizedRobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;

/**
 * Runs every test of the shared {@link IntentStoreContract} (a JUnit 5 class) against
 * {@link AndroidSqliteIntentStore} under Robolectric, which needs a JUnit 4 runner: one
 * parameterized case per contract method, named after it, so a broken rule fails the build by name.
 * The stores live in the app's {@code noBackupFilesDir}, as in production.
 */
@RunWith(ParameterizedRobolectricTestRunner.class)
@Config(sdk = 35, manifest = Config.NONE)
public class AndroidSqliteIntentStoreContractTest {
  private final String contractMethod;

  public AndroidSqliteIntentStoreContractTest(String contractMethod) {
    this.contractMethod = contractMethod;
  }

  /** The names of the contract's {@code @Test} methods. */
  @Parameters(name = "{0}")
  public static Collection<Object[]> contractMethods() {
    List<Object[]> names = new ArrayList<>();
    for (Method m : IntentStoreContract.class.getDeclaredMethods()) {
      if (m.isAnnotationPresent(org.junit.jupiter.api.Test.class)) {
        names.add(new Object[] {m.getName()});
      }
    }
    names.sort((a, b) -> ((String) a[0]).compareTo((String) b[0]));
    return names;
  }

  @Test
  public void android_sqlite_store_keeps_the_contract() throws Throwable {
    SqliteContract contract = new SqliteContract(RuntimeEnvironment.getApplication()
        .getNoBackupFilesDir());
    invoke(contract, "openFreshStore");
    try {
      invoke(contract, contractMethod);
    } finally {
      invoke(contract, "closeStore");
    }
  }

  private static void invoke(IntentStoreContract contract, String name) throws Throwable {
    Method method = IntentStoreContract.class.getDeclaredMethod(name);
    method.setAccessible(true);
    try {
      method.invoke(contract);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /** The contract bound to the SQLite store; reopening goes through the file. */
  static final class SqliteContract extends IntentStoreContract {
    private static final AtomicInteger FILES = new AtomicInteger();
    private final File dir;

    SqliteContract(File dir) {
      this.dir = dir;
    }

    @Override
    protected IntentStore openStore() {
      return AndroidSqliteIntentStore.open(
          new File(dir, "contract-" + FILES.incrementAndGet() + ".db"));
    }

    @Override
    protected IntentStore reopen(IntentStore store) {
      String path = ((AndroidSqliteIntentStore) store).path();
      store.close();
      return AndroidSqliteIntentStore.open(new File(path));
    }
  }
}
