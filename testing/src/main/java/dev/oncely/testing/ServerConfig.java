package dev.oncely.testing;

import java.time.Clock;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import okhttp3.HttpUrl;
import org.jspecify.annotations.Nullable;

/**
 * The settings of one {@link IdempotentServer}, copied from its {@link IdempotentServer.Builder} at
 * {@code build()}, so a builder changed later leaves the server alone. Immutable; the meaning and
 * default of each field is documented on the builder's setter of the same name. A null field
 * means the setting was not made.
 */
final class ServerConfig {
  final String keyHeader;
  final KeyQuoting keyQuoting;
  final int maxKeyLength;
  final @Nullable String scopeHeader;
  final MismatchAnswer mismatch;
  final int inProgressStatus;
  final int retryAfterSeconds;
  final ServerErrors serverErrors;
  final Predicate<ReceivedRequest> asynchronous;
  final int completeAfterPolls;
  final @Nullable Duration completeAfter;
  final String statusPath;
  final String idPrefix;
  final @Nullable Function<IdempotentServer.Committed, String> resultBody;
  final boolean locationOnCreated;
  final int maxBodyBytes;
  final String inProgressContentType;
  final String inProgressBody;
  final PollStyle pollStyle;
  final @Nullable HttpUrl statusOrigin;
  final boolean locationOnReplay;
  final boolean replayAcceptedForever;
  final boolean inProgressWhileAccepted;
  final @Nullable Duration retention;
  final Clock clock;
  final FingerprintRule fingerprint;
  final boolean fingerprintQuery;
  final FaultScript faults;
  final @Nullable Function<ReceivedRequest, @Nullable String> intentOf;
  final @Nullable Function<ReceivedRequest, @Nullable String> businessRule;
  final boolean acceptKeyless;
  final Duration lateFor;
  final @Nullable Consumer<EffectLedger.Effect> onEffect;
  final @Nullable String credentialHeader;
  final @Nullable Predicate<@Nullable String> credentialAccepted;

  ServerConfig(IdempotentServer.Builder b) {
    this.keyHeader = b.keyHeader;
    this.keyQuoting = b.keyQuoting;
    this.maxKeyLength = b.maxKeyLength;
    this.scopeHeader = b.scopeHeader;
    this.mismatch = b.mismatch;
    this.inProgressStatus = b.inProgressStatus;
    this.retryAfterSeconds = b.retryAfterSeconds;
    this.serverErrors = b.serverErrors;
    this.asynchronous = b.asynchronous;
    this.completeAfterPolls = b.completeAfterPolls;
    this.completeAfter = b.completeAfter;
    this.statusPath = b.statusPath;
    this.idPrefix = b.idPrefix;
    this.resultBody = b.resultBody;
    this.locationOnCreated = b.locationOnCreated;
    this.maxBodyBytes = b.maxBodyBytes;
    this.inProgressContentType = b.inProgressContentType;
    this.inProgressBody = b.inProgressBody;
    this.pollStyle = b.pollStyle;
    this.statusOrigin = b.statusOrigin;
    this.locationOnReplay = b.locationOnReplay;
    this.replayAcceptedForever = b.replayAcceptedForever;
    this.inProgressWhileAccepted = b.inProgressWhileAccepted;
    this.retention = b.retention;
    this.clock = b.clock;
    this.fingerprint = b.fingerprint;
    this.fingerprintQuery = b.fingerprintQuery;
    this.faults = b.faults;
    this.intentOf = b.intentOf;
    this.businessRule = b.businessRule;
    this.acceptKeyless = b.acceptKeyless;
    this.lateFor = b.lateFor;
    this.onEffect = b.onEffect;
    this.credentialHeader = b.credentialHeader;
    this.credentialAccepted = b.credentialAccepted;
  }

  /** {@code answer} with this server's {@code Retry-After}, if it sends one. */
  Answer withRetryAfter(Answer answer) {
    return retryAfterSeconds >= 0
        ? answer.with("Retry-After", Integer.toString(retryAfterSeconds)) : answer;
  }
}
