package dev.oncely.persistence;

import static dev.oncely.client.spi.IntentStoreContract.fullRecord;
import static dev.oncely.client.spi.IntentStoreContract.newRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreEncryptionException;
import dev.oncely.client.StoreException;
import dev.oncely.client.StoreLockedException;
import dev.oncely.client.spi.StoreEncryption;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the MapDB store does with its own files: one owner, no leaked descriptors, and for every
 * kind of damage to every one of its files either a correct store or a typed error naming the
 * path, never a silently wrong or missing record.
 */
class MapDbIntentStoreFilesTest {
  @TempDir Path dir;

  private Path store() {
    return dir.resolve("intents.db");
  }

  /** Writes records in several group commits, leaving unfinished and finished ones. */
  private static List<IntentRecord> fill(MapDbIntentStore store, int count) {
    List<IntentRecord> written = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      IntentRecord r = fullRecord("tenant", "pay", "key-" + i);
      store.create(r);
      if (i % 3 == 0) {
        IntentRecord done = r.successor().state(IntentState.COMPLETED).build();
        assertThat(store.compareAndSet(r, done)).isTrue();
        r = done;
      }
      written.add(r);
    }
    return written;
  }

  /** Opens {@code path} and reads every record back: equal to what was written, or a typed error. */
  private static String openAndCompare(Path path, List<IntentRecord> expected) {
    try (MapDbIntentStore reopened = MapDbIntentStore.open(path)) {
      for (IntentRecord r : expected) {
        assertThat(reopened.get(r.id())).contains(r);
        if (r.businessId() != null) {
          assertThat(reopened.findByBusinessId(r.id().scope(), r.id().operation(), r.businessId()))
              .contains(r);
        }
      }
      assertThat(reopened.listUnfinished())
          .containsExactlyInAnyOrderElementsOf(
              expected.stream().filter(r -> !r.state().isTerminal()).toList());
      return "recovered";
    } catch (StoreCorruptedException e) {
      assertThat(e).hasMessageContaining(path.getParent().toString());
      return "refused";
    }
  }

  private Path snapshot(String name) throws IOException {
    Path target = dir.resolve(name);
    Files.createDirectories(target);
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        Files.copy(f, target.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    return target.resolve("intents.db");
  }

  private static int openDescriptors() throws IOException {
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      return (int) fds.count();
    }
  }

  @Test
  void a_second_opener_gets_store_locked_naming_the_path_and_leaks_nothing() throws Exception {
    try (MapDbIntentStore first = MapDbIntentStore.open(store())) {
      first.create(newRecord("s", "op", "k"));
      int before = openDescriptors();
      for (int i = 0; i < 5; i++) {
        assertThatThrownBy(() -> MapDbIntentStore.open(store()))
            .isInstanceOf(StoreLockedException.class)
            .hasMessageContaining(store().toString());
      }
      assertThat(openDescriptors()).isEqualTo(before);
      assertThat(first.get(newRecord("s", "op", "k").id())).isPresent();
    }
    try (MapDbIntentStore again = MapDbIntentStore.open(store())) {
      assertThat(again.get(newRecord("s", "op", "k").id())).isPresent();
    }
  }

  @Test
  void a_failed_open_of_a_damaged_store_closes_every_descriptor_and_keeps_no_lock()
      throws Exception {
    try (MapDbIntentStore s = MapDbIntentStore.open(store())) {
      fill(s, 10);
    }
    try (RandomAccessFile f = new RandomAccessFile(dir.resolve("intents.db.image").toFile(),
        "rw")) {
      f.seek(0);
      f.write(new byte[4096]);
    }
    MapDbIntentStore.open(dir.resolve("warm-up.db")).close();
    int before = openDescriptors();
    for (int i = 0; i < 5; i++) {
      assertThatThrownBy(() -> MapDbIntentStore.open(store()))
          .isInstanceOf(StoreCorruptedException.class)
          .hasMessageContaining(dir.toString());
    }
    assertThat(openDescriptors()).isEqualTo(before);
  }

  @Test
  void files_are_owner_only() throws Exception {
    try (MapDbIntentStore s = MapDbIntentStore.open(store())) {
      fill(s, 3);
      assertOwnerOnly();
    }
    assertThat(dir.resolve("intents.db.redo")).as("the close's checkpoint wrote a redo")
        .exists();
    assertOwnerOnly();
  }

  private void assertOwnerOnly() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.toList()) {
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)))
            .as(f.toString()).isEqualTo("rw-------");
      }
    }
  }

  @Test
  void truncating_any_file_after_a_clean_close_recovers_or_refuses() throws Exception {
    List<IntentRecord> written;
    try (MapDbIntentStore s = MapDbIntentStore.open(store())) {
      written = fill(s, 30);
    }
    for (String name : List.of("intents.db", "intents.db.journal", "intents.db.image")) {
      for (long keep : new long[] {0, 17, 4100, 4096 * 16}) {
        Path copy = snapshot("trunc-" + name + "-" + keep);
        try (RandomAccessFile f = new RandomAccessFile(copy.resolveSibling(name).toFile(), "rw")) {
          f.setLength(Math.min(keep, f.length()));
        }
        openAndCompare(copy, written);
      }
    }
  }

  @Test
  void a_clean_close_leaves_an_empty_journal_an_empty_redo_and_one_image() throws Exception {
    List<IntentRecord> written;
    try (MapDbIntentStore s = MapDbIntentStore.open(store(),
        StoreOptions.builder().journalLimit(4096).build())) {
      written = fill(s, 40);
    }
    assertThat(Files.size(dir.resolve("intents.db.journal"))).as("the bare header")
        .isEqualTo(dev.oncely.persistence.internal.mapdb.Journal.HEADER_AREA);
    assertThat(Files.size(dir.resolve("intents.db.redo"))).as("no redo pending").isZero();
    assertThat(dir.resolve("intents.db.a")).doesNotExist();
    assertThat(dir.resolve("intents.db.b")).doesNotExist();
    byte[] image = Files.readAllBytes(dir.resolve("intents.db.image"));
    assertThat(openAndCompare(store(), written)).isEqualTo("recovered");
    assertThat(Files.readAllBytes(dir.resolve("intents.db.image")))
        .as("an open that commits nothing leaves the image as it is").isEqualTo(image);
  }

  @Test
  void a_journal_limit_below_one_byte_is_refused() {
    assertThatThrownBy(() -> StoreOptions.builder().journalLimit(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("journalLimit");
  }

  @Test
  void an_emptied_image_after_a_clean_close_is_refused_not_recreated() throws Exception {
    List<IntentRecord> written;
    try (MapDbIntentStore s = MapDbIntentStore.open(store())) {
      written = fill(s, 30);
    }
    Path copy = snapshot("zeroed-image");
    try (RandomAccessFile f = new RandomAccessFile(copy.resolveSibling("intents.db.image")
        .toFile(), "rw")) {
      f.setLength(0);
    }
    assertThat(openAndCompare(copy, written)).isEqualTo("refused");
    assertThat(openAndCompare(copy, written)).isEqualTo("refused");
  }

  @Test
  void bit_flips_and_overwrites_in_any_file_never_give_a_wrong_or_missing_record()
      throws Exception {
    Random random = new Random(42);
    List<IntentRecord> written;
    Path live = snapshotAfter(true);
    written = lastWritten;
    int refused = 0;
    int recovered = 0;
    for (boolean clean : new boolean[] {true, false}) {
      Path base = clean ? live : snapshotAfter(false);
      written = lastWritten;
      for (String name : List.of("intents.db", "intents.db.journal", "intents.db.image")) {
        long length = Files.size(base.resolveSibling(name));
        long span = name.equals("intents.db") ? 4096 + 40 : Math.min(length, 64 * 1024);
        for (int trial = 0; trial < 12; trial++) {
          Path copy = copyOf(base, "flip-" + clean + "-" + name + "-" + trial);
          long offset = (long) (random.nextDouble() * span);
          try (RandomAccessFile f = new RandomAccessFile(copy.resolveSibling(name).toFile(),
              "rw")) {
            f.seek(offset);
            if (trial % 2 == 0) {
              int b = f.read();
              f.seek(offset);
              f.write(b ^ (1 << random.nextInt(8)));
            } else {
              byte[] garbage = new byte[64];
              random.nextBytes(garbage);
              f.write(garbage);
            }
          }
          if (openAndCompare(copy, written).equals("refused")) {
            refused++;
          } else {
            recovered++;
          }
        }
      }
    }
    assertThat(refused + recovered).isEqualTo(72);
  }

  private List<IntentRecord> lastWritten;
  private int snapshots;

  /**
   * Builds a store in its own directory and returns a copy of its files: after a clean close, or
   * taken while it is still open (what a kill at that moment leaves: copies not in sync).
   */
  private Path snapshotAfter(boolean clean) throws IOException {
    Path home = dir.resolve("home-" + snapshots++);
    Files.createDirectories(home);
    Path path = home.resolve("intents.db");
    MapDbIntentStore s = MapDbIntentStore.open(path);
    try {
      lastWritten = fill(s, 40);
      if (clean) {
        s.close();
      }
      return copyOf(path, "snap-" + snapshots);
    } finally {
      s.close();
    }
  }

  private Path copyOf(Path path, String name) throws IOException {
    Path target = dir.resolve(name);
    Files.createDirectories(target);
    for (String f : List.of("intents.db", "intents.db.journal", "intents.db.image",
        "intents.db.redo")) {
      if (Files.exists(path.resolveSibling(f))) {
        Files.copy(path.resolveSibling(f), target.resolve(f));
      }
    }
    return target.resolve("intents.db");
  }

  @Test
  void an_unclean_stop_reopens_with_every_acknowledged_record() throws Exception {
    MapDbIntentStore s = MapDbIntentStore.open(store());
    List<IntentRecord> written = fill(s, 25);
    Path killed = copyOf(store(), "killed");
    s.close();
    assertThat(openAndCompare(killed, written)).isEqualTo("recovered");
  }

  @Test
  void reopen_after_many_writes_lists_exactly_the_unfinished_records_oldest_first()
      throws Exception {
    int count = 600;
    List<IntentRecord> unfinished = new ArrayList<>();
    try (MapDbIntentStore s = MapDbIntentStore.open(store())) {
      ExecutorService pool = Executors.newFixedThreadPool(16);
      try {
        List<Future<IntentRecord>> futures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
          int n = i;
          futures.add(pool.submit(() -> {
            IntentRecord r = newRecord("t", "op", "k" + n).toBuilder()
                .createdAt(Instant.parse("2026-11-30T00:00:00Z").plusSeconds(count - n)).build();
            s.create(r);
            if (n % 4 != 0) {
              return null;
            }
            IntentRecord pending = r.successor().state(IntentState.PENDING).build();
            assertThat(s.compareAndSet(r, pending)).isTrue();
            return pending;
          }));
          if (i % 4 == 1) {
            int n2 = i;
            futures.add(pool.submit(() -> {
              IntentRecord r = newRecord("t", "done", "k" + n2);
              s.create(r);
              assertThat(s.compareAndSet(r, r.successor().state(IntentState.REJECTED).build()))
                  .isTrue();
              return null;
            }));
          }
        }
        for (Future<IntentRecord> f : futures) {
          IntentRecord r = f.get(5, TimeUnit.MINUTES);
          if (r != null) {
            unfinished.add(r);
          }
        }
      } finally {
        pool.shutdownNow();
      }
    }
    unfinished.sort(Comparator.comparing(IntentRecord::createdAt));
    try (MapDbIntentStore s = MapDbIntentStore.open(store())) {
      List<IntentRecord> listed = s.listUnfinished();
      assertThat(listed.stream().filter(r -> r.state() == IntentState.PENDING).toList())
          .containsExactlyElementsOf(unfinished);
      assertThat(listed).hasSize(count)
          .allSatisfy(r -> assertThat(r.state().isTerminal()).isFalse())
          .isSortedAccordingTo(Comparator.comparing(IntentRecord::createdAt));
    }
  }

  @Test
  void quarantine_moves_damaged_files_aside_starts_empty_and_reports() throws Exception {
    try (MapDbIntentStore s = MapDbIntentStore.open(store())) {
      fill(s, 5);
    }
    try (RandomAccessFile f = new RandomAccessFile(store().toFile(), "rw")) {
      f.setLength(0);
      f.write(new byte[] {1, 2, 3});
    }
    Instant now = Instant.parse("2026-11-30T08:00:00Z");
    AtomicReference<QuarantineReport> report = new AtomicReference<>();
    StoreOptions options = StoreOptions.builder()
        .corruptionPolicy(CorruptionPolicy.QUARANTINE)
        .onQuarantine(report::set)
        .clock(Clock.fixed(now, ZoneOffset.UTC))
        .build();
    try (MapDbIntentStore s = MapDbIntentStore.open(store(), options)) {
      assertThat(s.listUnfinished()).isEmpty();
      s.create(newRecord("s", "op", "after"));
    }
    assertThat(report.get().store()).isEqualTo(store().toAbsolutePath());
    assertThat(report.get().reason()).contains("control");
    assertThat(report.get().movedTo()).isNotEmpty().allSatisfy(p -> {
      assertThat(p.getFileName().toString()).contains(".corrupt-");
      assertThat(p).exists();
    });
  }

  @Test
  void the_default_policy_touches_nothing() throws Exception {
    try (MapDbIntentStore s = MapDbIntentStore.open(store())) {
      fill(s, 5);
    }
    try (RandomAccessFile f = new RandomAccessFile(store().toFile(), "rw")) {
      f.setLength(3);
    }
    List<Path> before;
    try (Stream<Path> files = Files.list(dir)) {
      before = files.sorted().toList();
    }
    assertThatThrownBy(() -> MapDbIntentStore.open(store()))
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining(store().toString());
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.sorted().toList()).isEqualTo(before);
    }
  }

  @Test
  void a_newer_layout_version_is_refused_and_never_quarantined() throws Exception {
    try (MapDbIntentStore s = MapDbIntentStore.open(store())) {
      fill(s, 3);
    }
    try (RandomAccessFile f = new RandomAccessFile(store().toFile(), "rw")) {
      for (long slot : new long[] {0, 4096}) {
        byte[] bytes = new byte[40];
        f.seek(slot);
        f.readFully(bytes);
        bytes[4] = 4;
        CRC32 crc = new CRC32();
        crc.update(bytes, 0, 36);
        ByteBuffer.wrap(bytes, 36, 4).putInt((int) crc.getValue());
        f.seek(slot);
        f.write(bytes);
      }
    }
    StoreOptions quarantine = StoreOptions.builder()
        .corruptionPolicy(CorruptionPolicy.QUARANTINE).build();
    assertThatThrownBy(() -> MapDbIntentStore.open(store(), quarantine))
        .isInstanceOf(StoreException.class)
        .isNotInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining("version 4");
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .noneMatch(name -> name.contains(".corrupt-"));
    }
  }

  @Test
  void a_store_of_the_first_layout_is_refused_untouched_and_never_quarantined() throws Exception {
    byte[] slot = new byte[28];
    ByteBuffer.wrap(slot).put(new byte[] {'O', 'M', 'D', 'B', 1, 0, 1, 0}).putLong(1).putLong(7);
    CRC32 crc = new CRC32();
    crc.update(slot, 0, 24);
    ByteBuffer.wrap(slot, 24, 4).putInt((int) crc.getValue());
    Files.write(store(), slot);
    StoreOptions quarantine = StoreOptions.builder()
        .corruptionPolicy(CorruptionPolicy.QUARANTINE).build();
    assertThatThrownBy(() -> MapDbIntentStore.open(store(), quarantine))
        .isInstanceOf(StoreException.class)
        .isNotInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining("version 1");
    assertThat(Files.readAllBytes(store())).isEqualTo(slot);
  }

  @Test
  void a_wrong_encryption_key_is_a_clear_error_at_open() {
    StoreOptions key1 = StoreOptions.builder()
        .encryption(StoreEncryption.aes256Gcm(new byte[32])).build();
    byte[] other = new byte[32];
    other[0] = 1;
    StoreOptions key2 = StoreOptions.builder()
        .encryption(StoreEncryption.aes256Gcm(other)).build();
    try (MapDbIntentStore s = MapDbIntentStore.open(store(), key1)) {
      fill(s, 2);
    }
    assertThatThrownBy(() -> MapDbIntentStore.open(store(), key2))
        .isInstanceOf(StoreEncryptionException.class);
    try (MapDbIntentStore s = MapDbIntentStore.open(store(), key1)) {
      assertThat(s.get(fullRecord("tenant", "pay", "key-1").id())).isPresent();
    }
  }

  @Test
  void purge_gives_space_back_to_the_file_system() throws Exception {
    int count = 400;
    try (MapDbIntentStore s = MapDbIntentStore.open(store())) {
      ExecutorService pool = Executors.newFixedThreadPool(16);
      try {
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
          int n = t;
          futures.add(pool.submit(() -> {
            for (int i = n; i < count; i += 16) {
              s.create(newRecord("t", "op", "k" + i).toBuilder()
                  .body(new byte[16 * 1024], "application/octet-stream")
                  .state(IntentState.COMPLETED).build());
            }
            return null;
          }));
        }
        for (Future<?> f : futures) {
          f.get(5, TimeUnit.MINUTES);
        }
      } finally {
        pool.shutdownNow();
      }
    }
    // Reopened, as records due for purge were written long ago: the close applied them to both copies.
    try (MapDbIntentStore s = MapDbIntentStore.open(store())) {
      long before = copiesSize();
      assertThat(s.purgeExpired(Instant.parse("2100-01-01T00:00:00Z"))).isEqualTo(count);
      long after = copiesSize();
      assertThat(after).isLessThan(before / 2);
      assertThat(s.get(newRecord("t", "op", "k1").id())).isEmpty();
    }
  }

  private long copiesSize() throws IOException {
    return Files.size(dir.resolve("intents.db.image"));
  }
}
