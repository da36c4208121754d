package dev.oncely.client.internal;

import java.time.Duration;

/**
 * Every default of the engine, in one place; the public constants of the entry points
 * ({@code IdempotentClient}, {@code IntentSpec}) name these values, and the builders start from
 * them.
 */
public final class Defaults {
  /** Limit of a kept response body, in bytes (1 MiB). */
  public static final long MAX_RESPONSE_BYTES = 1024 * 1024;
  /** Limit of an intent's request body, in bytes (1 MiB). */
  public static final long MAX_BODY_BYTES = 1024 * 1024;
  /** Threads of a client's own driver pool. */
  public static final int DRIVER_THREADS = 16;
  /** Most drives a resume has started that are still starting. */
  public static final int RESUMES_STARTING_AT_ONCE = 64;
  /** Most drives a resume has started and not yet seen end, waiting ones included. */
  public static final int RESUMES_AT_ONCE = 4_096;
  /** How long closing an owner waits for running drives to record how they stopped. */
  public static final int CLOSE_GRACE_SECONDS = 5;
  /** How many finished records the cache keeps to answer repeats without a store read. */
  public static final long FINISHED_CACHE_SIZE = 10_000;
  /** How long a finished record is kept before a purge may delete it. */
  public static final Duration FINISHED_RETENTION = Duration.ofDays(7);

  private Defaults() {}
}
