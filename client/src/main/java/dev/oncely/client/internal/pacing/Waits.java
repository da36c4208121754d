package dev.oncely.client.internal.pacing;

import dev.oncely.client.IntentId;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.StoredResponse;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.IntentListener;
import java.time.Duration;
import java.time.Instant;
import java.util.Random;

/**
 * The wait before the next attempt of one drive or call: the server's {@code Retry-After} when it
 * gave a valid, non-zero one (bounded by the policy's cap), else the next full-jitter backoff step.
 * {@code Retry-After: 0} falls back to backoff: honoured literally, a server answering every poll
 * of a slow {@code 202} with it would burn all attempts within milliseconds. A malformed
 * {@code Retry-After} is reported as an event and ignored. Not thread-safe.
 */
public final class Waits {
  private final RetryPolicy policy;
  private final Random random;
  private final IntentListener listener;
  private final IntentId id;
  private int backoffStep;

public   Waits(RetryPolicy policy, Random random, IntentListener listener, IntentId id) {
    this.policy = policy;
    this.random = random;
    this.listener = listener;
    this.id = id;
  }

  /** The wait after {@code answer} (null when no answer came) at {@code now}. */
  Duration next(StoredResponse answer, Instant now) {
    String header = answer == null ? null : answer.header("Retry-After");
    RetryAfter.Parsed parsed = RetryAfter.parse(header, now);
    if (parsed.malformed()) {
      listener.onEvent(new IntentEvent.MalformedRetryAfter(id, header.length()));
    }
    if (parsed.delay() != null && !parsed.delay().isZero()) {
      Duration cap = policy.maxDelay();
      return parsed.delay().compareTo(cap) > 0 ? cap : parsed.delay();
    }
    return policy.backoff(backoffStep++, random);
  }

  /** Whether {@code answer} carried a usable {@code Retry-After}. */
  static boolean serverChose(StoredResponse answer) {
    if (answer == null || answer.header("Retry-After") == null) {
      return false;
    }
    Duration delay = RetryAfter.parse(answer.header("Retry-After"), Instant.EPOCH).delay();
    return delay != null && !delay.isZero();
  }
}
