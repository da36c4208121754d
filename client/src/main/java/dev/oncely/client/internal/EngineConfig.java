package dev.oncely.client.internal;

import dev.oncely.client.HeaderProvider;
import dev.oncely.client.Reconciler;
import dev.oncely.client.RetryBudget;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.Sleeper;
import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.event.IntentListener;
import dev.oncely.client.spi.IntentId;
import dev.oncely.client.spi.IntentRecord;
import dev.oncely.client.spi.IntentStore;
import dev.oncely.client.spi.NetworkGate;
import dev.oncely.client.spi.RecordCache;
import java.time.Clock;
import java.time.Duration;
import java.util.Random;
import java.util.Set;
import okhttp3.Call;

/** Everything one drive needs, fixed when the client is built. */
public record EngineConfig(
    Call.Factory http,
    IntentStore store,
    Dialect dialect,
    RetryPolicy policy,
    RetryBudget budget,
    IntentListener listener,
    HeaderProvider headers,
    Clock clock,
    Sleeper sleeper,
    NetworkGate gate,
    Duration keyRetention,
    Duration finishedRetention,
    Reconciler reconciler,
    Random random,
    long maxResponseBytes,
    RecordCache<IntentId, IntentRecord> finished,
    CallRegistry calls,
    Set<String> credentialOrigins) {}
