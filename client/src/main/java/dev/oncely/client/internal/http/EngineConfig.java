package dev.oncely.client.internal.http;

import dev.oncely.client.internal.EngineClock;
import dev.oncely.client.internal.drive.CallRegistry;
import dev.oncely.client.internal.drive.DriveOwner;
import dev.oncely.client.internal.drive.DriveSettings;
import dev.oncely.client.HeaderProvider;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.RecordCache;
import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.event.IntentListener;
import java.util.Set;
import okhttp3.Call;

/**
 * Everything the intent API's drives need, fixed when the client is built: the settings shared
 * with the interceptor, how the client's own attempts reach the wire, and the owner whose close
 * stops them.
 */
public record EngineConfig(
    DriveSettings drive,
    Call.Factory http,
    HeaderProvider headers,
    long maxResponseBytes,
    DriveOwner owner) {

  /** Origins besides the intent's own that may get its stored headers and credentials. */
  public Set<String> credentialOrigins() {
    return drive.credentialOrigins();
  }

  /** The calls the client's drives have on the wire. */
  public CallRegistry calls() {
    return owner.calls();
  }

  /** The store records live in. */
  public IntentStore store() {
    return drive.store();
  }

  /** The server dialect. */
  public Dialect dialect() {
    return drive.dialect();
  }

  /** The event listener. */
  public IntentListener listener() {
    return drive.listener();
  }

  /** The clock of record times, deadlines and waits. */
  public EngineClock clock() {
    return drive.clock();
  }

  /** The cache of finished records, or null (the in-memory store needs none). */
  public RecordCache<IntentId, IntentRecord> finished() {
    return drive.finished();
  }
}
