package dev.oncely.client.internal.drive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentId;
import dev.oncely.client.testing.WatchedStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The process's one drive per intent and store: a second caller joins, another store is another
 * drive, a decorated view shares the drives of the store it decorates, a closed owner admits
 * nothing, and an ended drive leaves room for the next. Every store here is new, so the
 * process-wide registry holds nothing of other tests' intents.
 */
class DriveRegistryTest {
  private static final IntentId ID = IntentId.of("tenant-1", "create-payment", "pay-7f3a");

  private final DriveRegistry registry = DriveRegistry.process();
  private final DriveOwner owner = new DriveOwner("the test client");
  private final List<DriveRegistry.Entry> entered = new ArrayList<>();

  private DriveRegistry.Entry enter(InMemoryIntentStore store, IntentId id, DriveOwner by) {
    DriveRegistry.Entry entry = registry.enter(store, id, by, "v2:fingerprint");
    entered.add(entry);
    return entry;
  }

  @AfterEach
  void finishEveryDrive() {
    for (DriveRegistry.Entry entry : entered) {
      if (entry.drive() != null) {
        entry.drive().finish(DriveEnd.notStarted("test over", null));
      }
    }
  }

  @Test
  void a_second_enter_of_a_driven_intent_joins_the_running_drive_and_shares_its_end() {
    InMemoryIntentStore store = new InMemoryIntentStore();
    DriveRegistry.Entry first = enter(store, ID, owner);
    DriveRegistry.Entry second = enter(store, ID, owner);

    assertThat(first.acquired()).isTrue();
    assertThat(second.acquired()).isFalse();
    assertThat(second.drive()).isSameAs(first.drive());
    assertThat(registry.isDriven(store, ID)).isTrue();

    DriveEnd end = DriveEnd.notStarted("ended by the test", null);
    first.drive().finish(end);
    assertThat(second.drive().ended()).isCompletedWithValue(end);
  }

  @Test
  void the_same_intent_in_another_store_is_another_drive() {
    DriveRegistry.Entry inOne = enter(new InMemoryIntentStore(), ID, owner);
    DriveRegistry.Entry inOther = enter(new InMemoryIntentStore(), ID, owner);

    assertThat(inOne.acquired()).isTrue();
    assertThat(inOther.acquired()).isTrue();
    assertThat(inOther.drive()).isNotSameAs(inOne.drive());
  }

  @Test
  void another_intent_in_the_same_store_is_another_drive() {
    InMemoryIntentStore store = new InMemoryIntentStore();
    DriveRegistry.Entry one = enter(store, ID, owner);
    DriveRegistry.Entry other = enter(store, IntentId.of("tenant-1", "create-payment", "pay-9c"),
        owner);

    assertThat(other.acquired()).isTrue();
    assertThat(other.drive()).isNotSameAs(one.drive());
  }

  @Test
  void a_decorated_view_of_a_store_shares_the_drives_of_the_store_it_decorates() {
    InMemoryIntentStore store = new InMemoryIntentStore();
    DriveRegistry.Entry plain = enter(store, ID, owner);
    DriveRegistry.Entry viaView = registry.enter(new WatchedStore(store), ID, owner, null);
    entered.add(viaView);

    assertThat(viaView.acquired()).isFalse();
    assertThat(viaView.drive()).isSameAs(plain.drive());
    assertThat(registry.isDriven(new WatchedStore(store), ID)).isTrue();
  }

  @Test
  void a_closed_owner_admits_nothing_and_leaves_nothing_registered() {
    InMemoryIntentStore store = new InMemoryIntentStore();
    owner.close(Duration.ZERO);

    DriveRegistry.Entry entry = enter(store, ID, owner);

    assertThat(entry.drive()).isNull();
    assertThat(entry.acquired()).isFalse();
    assertThat(registry.isDriven(store, ID)).isFalse();
    DriveRegistry.Entry openOwner = enter(store, ID, new DriveOwner("another client"));
    assertThat(openOwner.acquired()).as("the refused entry left no drive behind").isTrue();
  }

  @Test
  void an_ended_drive_leaves_the_registry_and_the_next_enter_leads_a_new_drive() {
    InMemoryIntentStore store = new InMemoryIntentStore();
    Drive first = enter(store, ID, owner).drive();
    first.finish(DriveEnd.notStarted("ended by the test", null));
    assertThat(registry.isDriven(store, ID)).isFalse();

    DriveRegistry.Entry next = enter(store, ID, owner);
    assertThat(next.acquired()).isTrue();
    assertThat(next.drive()).isNotSameAs(first);

    // An old drive ending twice (a late fail after its finish) never removes its successor.
    first.fail(new IllegalStateException("late"));
    assertThat(registry.isDriven(store, ID)).isTrue();
  }

  @Test
  void many_callers_entering_one_intent_at_once_get_one_leader_and_one_drive() throws Exception {
    InMemoryIntentStore store = new InMemoryIntentStore();
    int callers = 8;
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<DriveRegistry.Entry>> entries = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        entries.add(pool.submit(() -> {
          go.await();
          return registry.enter(store, ID, owner, "v2:fingerprint");
        }));
      }
      go.countDown();
      int leaders = 0;
      Set<Drive> drives = new HashSet<>();
      for (Future<DriveRegistry.Entry> future : entries) {
        DriveRegistry.Entry entry = future.get(5, TimeUnit.SECONDS);
        entered.add(entry);
        leaders += entry.acquired() ? 1 : 0;
        drives.add(entry.drive());
      }
      assertThat(leaders).isEqualTo(1);
      assertThat(drives).hasSize(1);
    } finally {
      pool.shutdownNow();
    }
  }
}
