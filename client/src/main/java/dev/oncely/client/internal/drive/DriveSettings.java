package dev.oncely.client.internal.drive;

import dev.oncely.client.internal.EngineClock;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.NetworkGate;
import dev.oncely.client.Reconciler;
import dev.oncely.client.RecordCache;
import dev.oncely.client.RetryBudget;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.Sleeper;
import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.event.IntentListener;
import java.time.Duration;
import java.util.Random;
import java.util.Set;

/**
 * What the {@link DriveLoop} needs, the same for both entry points, fixed when a client or an
 * interceptor is built.
 *
 * @param store where records live, never null (an interceptor built without a store gets one
 *     whose records live as long as their call)
 * @param clock wall time for what is stored, monotonic time for deadlines and waits
 * @param finished cache of finished records, or null for none
 * @param credentialOrigins origins besides the intent's own that may get its stored headers and
 *     credentials (status URLs there are polled with them)
 * @param maxResponseBytes the largest response body kept in a record
 * @param keepFinishedRequests whether a finished record keeps its request body and headers
 *     (otherwise it {@linkplain dev.oncely.client.IntentRecord.Builder#dropRequest drops them})
 */
public record DriveSettings(
    IntentStore store,
    Dialect dialect,
    RetryPolicy policy,
    RetryBudget budget,
    IntentListener listener,
    EngineClock clock,
    Sleeper sleeper,
    Random random,
    NetworkGate gate,
    Duration keyRetention,
    Duration finishedRetention,
    Reconciler reconciler,
    RecordCache<IntentId, IntentRecord> finished,
    Set<String> credentialOrigins,
    long maxResponseBytes,
    boolean keepFinishedRequests) {}
