package dev.oncely.client.spi.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.UnfinishedEntry;
import dev.oncely.client.spi.BusinessKey;
import dev.oncely.client.spi.DueClaim;
import dev.oncely.client.spi.IntentStoreContract;
import dev.oncely.client.spi.RecordCodec;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The row rules every SQLite engine shares: which column holds what, in which parameter order. */
class IntentRowsTest {
  private final IntentRows withStubs = IntentRows.withStubs("store", null);
  private final IntentRows withoutStubs = IntentRows.withoutStubs("store", null);

  @Test
  void an_unfinished_record_is_indexed_by_creation_and_due_time_and_carries_its_stub() {
    IntentRecord r = IntentStoreContract.fullRecord("s", "op", "k");
    IntentRow row = withStubs.row(r);
    assertThat(row.lookup()).isEqualTo(RecordCodec.lookupKey(r.id()));
    assertThat(row.business()).isEqualTo(BusinessKey.of(r));
    assertThat(row.open()).isEqualTo(r.createdAt());
    assertThat(row.purge()).isNull();
    assertThat(row.due()).isEqualTo(DueClaim.indexTime(r)).isNotNull();
    assertThat(new RecordCodec().decode(row.record(), "test")).isEqualTo(r);
    assertThat(new UnfinishedStub(null).decode(row.stub(), () -> "test"))
        .isEqualTo(UnfinishedEntry.of(r));
  }

  @Test
  void a_terminal_record_is_indexed_by_expiry_only() {
    IntentRecord r = IntentStoreContract.newRecord("s", "op", "k").toBuilder()
        .state(IntentState.COMPLETED).build();
    IntentRow row = withStubs.row(r);
    assertThat(row.business()).isNull();
    assertThat(row.open()).isNull();
    assertThat(row.purge()).isEqualTo(r.expiresAt());
    assertThat(row.stub()).isNull();
    assertThat(row.due()).isNull();
  }

  @Test
  void rows_without_stubs_keep_every_part_of_the_id_out_of_the_stub_column() {
    IntentRecord r = IntentStoreContract.fullRecord("s", "op", "k");
    IntentRow row = withoutStubs.row(r);
    assertThat(row.stub()).isNull();
    assertThat(row.open()).isEqualTo(r.createdAt());
    assertThat(row.due()).isEqualTo(DueClaim.indexTime(r));
  }

  @Test
  void parameters_follow_the_statements_placeholders_in_column_order() {
    IntentRecord r = IntentStoreContract.fullRecord("s", "op", "k");
    IntentRow row = withStubs.row(r);
    assertThat(row.insertParameters()).hasSize(placeholders(IntentSql.INSERT));
    assertThat(row.updateParameters()).hasSize(placeholders(IntentSql.UPDATE));
    List<Object> insert = row.insertParameters();
    assertThat(insert.get(0)).isSameAs(row.lookup());
    assertThat(insert.get(1)).isSameAs(row.business());
    assertThat(insert.subList(2, 6)).containsExactly(r.createdAt().getEpochSecond(),
        (long) r.createdAt().getNano(), null, null);
    assertThat(insert.get(6)).isSameAs(row.record());
    assertThat(insert.get(7)).isSameAs(row.stub());
    assertThat(insert.subList(8, 10)).containsExactly(row.due().getEpochSecond(),
        (long) row.due().getNano());
    List<Object> update = row.updateParameters();
    assertThat(update.subList(0, 8)).isEqualTo(insert.subList(2, 10));
    assertThat(update.get(8)).isSameAs(row.lookup());
  }

  @Test
  void a_copied_row_keeps_its_bytes_and_computes_its_columns_from_them() {
    IntentRecord r = IntentStoreContract.fullRecord("s", "op", "k");
    byte[] bytes = new RecordCodec().encode(r);
    IntentRow copied = withStubs.copied(RecordCodec.lookupKey(r.id()), bytes);
    IntentRow fresh = withStubs.row(r);
    assertThat(copied.record()).isSameAs(bytes);
    assertThat(Arrays.asList(copied.open(), copied.purge(), copied.due()))
        .isEqualTo(Arrays.asList(fresh.open(), fresh.purge(), fresh.due()));
    assertThat(copied.business()).isEqualTo(fresh.business());
  }

  @Test
  void a_record_under_another_key_or_in_the_wrong_index_is_reported() {
    IntentRecord open = IntentStoreContract.newRecord("s", "op", "open");
    IntentRecord done = open.toBuilder().state(IntentState.COMPLETED).build();
    byte[] openBytes = withStubs.row(open).record();
    byte[] doneBytes = withStubs.row(done).record();
    byte[] elsewhere = RecordCodec.lookupKey(IntentStoreContract.newRecord("s", "op", "x").id());
    assertThatThrownBy(() -> withStubs.record(elsewhere, openBytes))
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining("belongs under another key");
    assertThatThrownBy(() -> withStubs.copied(elsewhere, openBytes))
        .isInstanceOf(StoreCorruptedException.class);
    byte[] lookup = RecordCodec.lookupKey(open.id());
    assertThatThrownBy(() -> withStubs.unfinished(lookup, doneBytes))
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining("listed in the unfinished index");
    assertThatThrownBy(() -> withStubs.finished(lookup, openBytes))
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining("missing from the unfinished index");
    assertThat(withStubs.unfinished(lookup, openBytes)).isEqualTo(open);
    assertThat(withStubs.finished(lookup, doneBytes)).isEqualTo(done);
  }

  @Test
  void the_schema_creates_the_table_then_its_indexes() {
    assertThat(IntentTable.create()).containsExactly(IntentTable.CREATE_META,
        IntentTable.CREATE_INTENT, IntentTable.UNFINISHED_INDEX, IntentTable.DUE_INDEX,
        IntentTable.DUE_UNKNOWN_INDEX, IntentTable.EXPIRY_INDEX);
    assertThat(IntentSql.INSERT).startsWith("INSERT OR IGNORE").doesNotContain("ON CONFLICT");
    assertThat(IntentSql.unknownDue(500)).endsWith("LIMIT 500");
    assertThatThrownBy(() -> IntentSql.unknownDue(0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static int placeholders(String sql) {
    return (int) sql.chars().filter(c -> c == '?').count();
  }
}
