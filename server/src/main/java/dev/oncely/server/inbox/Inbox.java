package dev.oncely.server.inbox;

import dev.oncely.client.DuplicateIntentException;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreException;
import dev.oncely.client.internal.EngineClock;
import dev.oncely.server.internal.InboxRecords;
import dev.oncely.server.internal.SteppedPurge;
import java.lang.System.Logger.Level;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Messages delivered at least once, handled once: a durable inbox on any of the client's {@link
 * IntentStore} engines (MapDB or SQLite for one instance, PostgreSQL for a fleet, the in-memory
 * store for tests). Give it a store of its own.
 *
 * <ul>
 *   <li>{@link #accept} stores a verified delivery once under (source, message id) on the store's
 *       unique constraint, with its exact bytes (sealed when the store encrypts), and returns
 *       before any handler runs: the sender gets its {@code 2xx} within its deadline. A duplicate,
 *       whether the first is handled, running, queued or dead, is acknowledged the same and
 *       stores nothing.
 *   <li>Workers ({@link Builder#workers}) take due messages from the store's due-time index, each
 *       under a lease renewed while its handler runs and fenced by the record's revision (a
 *       frozen instance that lost its lease cannot complete the message). A handler that throws
 *       is run again after a backoff; after {@link Builder#maxFailures} failures the message is
 *       dead-lettered ({@link InboxState#DEAD}), visible in {@link #listUnfinished()}, metrics and
 *       the CLI, until {@link #replay} queues it again. A run whose instance died counts as a
 *       failure once its lease runs out, so a message that kills its worker ends dead, not in a
 *       loop.
 *   <li>{@link #once} is the same for a queue consumer, in one call on the consumer's thread.
 * </ul>
 *
 * <p>Handlers run at least once and are deduplicated: a message is run again only after a failed
 * run, a dead instance, or a frozen one whose lease ran out. Effects in the same PostgreSQL
 * transaction as the message's completion run exactly once ({@code
 * dev.oncely.server.postgres.PostgresInbox}). Nothing here promises an order beyond the sender's:
 * a handler re-reads the current state of what an event names; {@link Builder#serialKey} runs the
 * messages of one key (a customer) one at a time within an instance.
 *
 * <p>Thread-safe. One instance per application: it owns a dispatcher thread and the worker
 * threads. {@link #close()} stops them; it does not close the store.
 */
public final class Inbox implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(Inbox.class.getName());
  /** The default retention of a handled message: Stripe's and Standard Webhooks' retry windows. */
  public static final Duration DEFAULT_RETENTION = Duration.ofDays(3);
  /** How many times a message may fail before it is dead-lettered, by default. */
  public static final int DEFAULT_MAX_FAILURES = 10;
  private static final String LAPSED_RUN =
      "a run did not finish before its lease ran out (its instance stopped or froze)";

  private final IntentStore store;
  private final Clock clock;
  /** The monotonic reading lease renewal is measured on (see {@link Builder#clock}). */
  private final EngineClock ticks;
  private final String instance;
  private final Duration lease;
  private final Duration defaultRetention;
  private final Map<String, Duration> retentions;
  private final int maxFailures;
  private final Backoff backoff;
  private final InboxListener listener;
  private final Map<String, InboxHandler> handlers;
  private final SteppedPurge purge;
  private final InboxWorkers workers;

  private Inbox(Builder b) {
    this.store = b.store;
    this.clock = b.clock;
    this.ticks = EngineClock.of(b.clock);
    this.instance = b.instance;
    this.lease = b.lease;
    this.defaultRetention = b.retention;
    this.retentions = Map.copyOf(b.retentions);
    this.maxFailures = b.maxFailures;
    this.backoff = new Backoff(b.firstBackoff, b.maxBackoff);
    this.listener = b.listener;
    this.handlers = Map.copyOf(b.handlers);
    this.purge = new SteppedPurge(store);
    this.workers = new InboxWorkers(this, b.workers, b.pollInterval, Map.copyOf(b.serialKeys));
    if (!b.deferStart) {
      workers.start();
    }
  }

  /** A builder for an inbox on {@code store}. */
  public static Builder builder(IntentStore store) {
    return new Builder(store);
  }

  /** The store the messages live in. */
  public IntentStore store() {
    return store;
  }

  /** The sources that have a handler, which the workers run. */
  public java.util.Set<String> sources() {
    return handlers.keySet();
  }

  /**
   * Stores one verified delivery, unless a message with its id is stored: one write on the
   * store's unique constraint, durable when this returns. Wakes a worker; the handler runs after
   * this returns.
   *
   * @param source the source's name (a scope: 1 to 255 characters, no control characters)
   * @param messageId the sender's message id (any non-blank text; ids that are not usable keys
   *     are kept under their SHA-256)
   * @param type the message's type, or null
   * @param payload the exact bytes delivered
   * @param contentType the payload's media type, or null
   * @return {@link Acceptance#ACCEPTED} when stored now, {@link Acceptance#DUPLICATE} when stored
   *     before; either way the sender may be told {@code 2xx}
   * @throws IllegalArgumentException if the source or the message id is unusable
   * @throws StoreException if the store failed: nothing is known to be stored, so answer the
   *     sender with an error it retries
   */
  public Acceptance accept(String source, String messageId, @Nullable String type,
      byte[] payload, @Nullable String contentType) {
    Objects.requireNonNull(payload, "payload");
    Instant now = clock.instant();
    InboxMessage candidate = newMessage(source, messageId, type, payload, contentType, now)
        .state(InboxState.QUEUED).dueAt(now).build();
    Optional<InboxMessage> holder = insert(candidate);
    if (holder.isEmpty()) {
      emit(InboxEvent.Kind.ACCEPTED, candidate);
      workers.wake();
      return Acceptance.ACCEPTED;
    }
    emitDuplicate(holder.get(), candidate);
    return Acceptance.DUPLICATE;
  }

  /**
   * Handles one delivery of an at-least-once queue (Kafka, SQS, JMS, a job table) once: stores it
   * under (source, message id) and runs {@code handler} on this thread under a lease, unless it
   * was handled before. Acknowledge the delivery to the queue when this returns; when it throws,
   * do not: the queue redelivers, and the next call runs the handler again (a message stays
   * deduplicated whichever consumer gets it). The failure is counted; after {@link
   * Builder#maxFailures} the message is dead-lettered and this returns {@link
   * Delivery#DEAD_LETTERED}. When the builder also names a handler for {@code source}, the
   * inbox's workers retry a failed message themselves and replay dead ones.
   *
   * @return what happened; every value means the delivery may be acknowledged
   * @throws InboxDeliveryException if the handler failed this time, or another caller holds the
   *     message now ({@link InboxDeliveryException#busy()})
   * @throws IllegalArgumentException if the source or the message id is unusable
   * @throws StoreException if the store failed; do not acknowledge
   */
  public Delivery once(String source, String messageId, byte[] payload, InboxHandler handler)
      throws InboxDeliveryException {
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(handler, "handler");
    Instant now = clock.instant();
    InboxMessage candidate = newMessage(source, messageId, null, payload, null, now)
        .state(InboxState.PROCESSING).dueAt(now.plus(lease)).leaseOwner(instance).build();
    Optional<InboxMessage> holder = insert(candidate);
    InboxMessage held;
    if (holder.isEmpty()) {
      emit(InboxEvent.Kind.ACCEPTED, candidate);
      held = candidate;
    } else {
      InboxMessage found = holder.get();
      emitDuplicate(found, candidate);
      switch (found.state()) {
        case HANDLED:
          return Delivery.ALREADY_HANDLED;
        case DEAD:
          return Delivery.DEAD_LETTERED;
        case PROCESSING:
          if (found.dueAt() != null && found.dueAt().isAfter(now)) {
            throw busy(found);
          }
          break;
        default:
          break;
      }
      Optional<InboxMessage> taken = take(found);
      if (taken.isEmpty()) {
        throw busy(found);
      }
      held = taken.get();
      if (held.state() == InboxState.DEAD) {
        return Delivery.DEAD_LETTERED;
      }
    }
    Held h = workers.hold(held);
    try {
      Throwable failure = workers.runHandler(h, handler);
      if (failure == null) {
        return Delivery.HANDLED;
      }
      if (h.current().state() == InboxState.DEAD) {
        return Delivery.DEAD_LETTERED;
      }
      throw new InboxDeliveryException("the handler of " + held + " failed: "
          + InboxRecords.describeFailure(failure), false, failure);
    } finally {
      workers.release(h);
    }
  }

  /**
   * The message {@code messageId} of {@code source}, if stored.
   *
   * @throws IllegalArgumentException if the source or the message id is unusable
   */
  public Optional<InboxMessage> get(String source, String messageId) {
    return read(InboxRecords.idOf(source, messageId));
  }

  /** Every message not yet handled (queued, processing, dead), oldest first. */
  public List<InboxMessage> listUnfinished() {
    List<InboxMessage> out = new ArrayList<>();
    for (IntentRecord r : store.listUnfinished()) {
      if (InboxRecords.isMessage(r)) {
        out.add(InboxRecords.fromRecord(r));
      }
    }
    return out;
  }

  /**
   * Queues a dead (or queued) message again, due now, with its failure count reset, and appends
   * {@code note} by {@code author} to it: the operator's hand replay.
   *
   * @return the queued message
   * @throws java.util.NoSuchElementException if no such message is stored
   * @throws IllegalStateException if it is handled (a handled message is never run again) or
   *     processing, or it changed while it was replayed (read it and try again)
   */
  public InboxMessage replay(String source, String messageId, String author, String note) {
    Objects.requireNonNull(author, "author");
    Objects.requireNonNull(note, "note");
    InboxMessage m = get(source, messageId).orElseThrow(() ->
        new java.util.NoSuchElementException("no message " + messageId + " of " + source
            + " is stored"));
    if (m.state() == InboxState.HANDLED || m.state() == InboxState.PROCESSING) {
      throw new IllegalStateException("the message is " + m.state()
          + "; only a dead or queued message can be replayed");
    }
    Instant now = clock.instant();
    InboxMessage queued = m.toBuilder().state(InboxState.QUEUED).revision(m.revision() + 1)
        .dueAt(now).failures(0).updatedAt(now)
        .addNote(new IntentRecord.Note(now, author, note)).build();
    if (!write(m, queued)) {
      throw new IllegalStateException("the message changed while it was replayed; read it again");
    }
    emit(InboxEvent.Kind.REPLAYED, queued);
    workers.wake();
    return queued;
  }

  /**
   * Removes handled messages whose retention ended by {@code now}, in steps of {@code step} of
   * expiry time (see {@code ReceiptStore.purgeExpired(Instant, Duration)}). Dead messages are
   * never purged.
   *
   * @return how many were removed
   */
  public int purgeExpired(Instant now, Duration step) {
    return purge.purge(now, step);
  }

  /**
   * Starts the workers of an inbox built with {@link Builder#deferStart()}: they take due
   * messages from now on. Does nothing when they run already or the inbox is closed.
   */
  public void start() {
    workers.start();
  }

  /**
   * Looks for due messages now instead of at the next poll: after the store was changed by
   * another process, or a test moved its clock.
   */
  public void pollNow() {
    workers.wake();
  }

  /**
   * Stops taking messages (a look for due messages under way ends first, within {@code grace}),
   * waits up to {@code grace} for running handlers, then interrupts them.
   * A handler that stops on the interrupt (throws) counts a failure and its message is queued
   * after a backoff; one that ignores it keeps its message until its lease runs out, and the
   * message is then run again by this or another instance. Messages waiting behind a serial key
   * go back to the queue, due at once. Does not close the store. Idempotent.
   */
  public void close(Duration grace) {
    workers.close(grace);
  }

  /** {@link #close(Duration)} with 10 seconds of grace. */
  @Override
  public void close() {
    close(Duration.ofSeconds(10));
  }

  // ---- what the workers and once() share --------------------------------------------------

  Clock clock() {
    return clock;
  }

  Duration lease() {
    return lease;
  }

  /** The monotonic reading, in nanoseconds, that renewal measures a third of the lease on. */
  long nanos() {
    return ticks.nanos();
  }

  @Nullable InboxHandler handlerOf(String source) {
    return handlers.get(source);
  }

  /**
   * Takes {@code found} (queued, or processing with a lease that ran out) under this instance's
   * lease. A takeover counts the dead run as a failure, and dead-letters the message when that
   * was its last allowed one (the result is then {@link InboxState#DEAD}).
   *
   * @return the held message, or empty if someone else changed it first
   */
  Optional<InboxMessage> take(InboxMessage found) {
    Instant now = clock.instant();
    boolean takeover = found.state() == InboxState.PROCESSING;
    int failures = found.failures() + (takeover ? 1 : 0);
    InboxMessage.Builder next = found.toBuilder().revision(found.revision() + 1).updatedAt(now)
        .failures(failures);
    if (takeover) {
      next.lastFailure(LAPSED_RUN);
    }
    if (takeover && failures >= maxFailures) {
      InboxMessage dead = next.state(InboxState.DEAD).dueAt(null).build();
      if (!write(found, dead)) {
        return Optional.empty();
      }
      emit(InboxEvent.Kind.DEAD_LETTERED, dead);
      return Optional.of(dead);
    }
    InboxMessage held = next.state(InboxState.PROCESSING).dueAt(now.plus(lease))
        .leaseOwner(instance).build();
    if (!write(found, held)) {
      return Optional.empty();
    }
    if (takeover) {
      emit(InboxEvent.Kind.TAKEN_OVER, held);
    }
    return Optional.of(held);
  }

  /**
   * Puts a message back in the queue, due after {@code delay}: one no handler here can run, or
   * one this instance held when it closed. A message found processing under a lease that ran out
   * ({@code lapsed}) counts the dead run as a failure, as a takeover does, so a message that
   * kills its runs ends dead whichever path finds it.
   *
   * @return whether the change was made
   */
  boolean requeue(InboxMessage found, Duration delay, boolean lapsed) {
    Instant now = clock.instant();
    int failures = found.failures() + (lapsed ? 1 : 0);
    InboxMessage.Builder next = found.toBuilder().revision(found.revision() + 1).updatedAt(now)
        .failures(failures);
    if (lapsed) {
      next.lastFailure(LAPSED_RUN);
    }
    boolean dead = lapsed && failures >= maxFailures;
    InboxMessage after = dead ? next.state(InboxState.DEAD).dueAt(null).build()
        : next.state(InboxState.QUEUED).dueAt(now.plus(delay)).build();
    if (!write(found, after)) {
      return false;
    }
    if (dead) {
      emit(InboxEvent.Kind.DEAD_LETTERED, after);
    }
    return true;
  }

  /** Records that {@code h}'s handler finished: handled, or fenced out if it lost its lease. */
  void complete(Held h) {
    synchronized (h) {
      InboxMessage m = h.current();
      InboxMessage done = handledOf(m);
      if (!h.fencedOut() && write(m, done)) {
        h.wrote(done, nanos());
        emit(InboxEvent.Kind.HANDLED, done);
      } else {
        h.fence();
        emit(InboxEvent.Kind.FENCED_OUT, m);
      }
    }
  }

  /**
   * Records that {@code h}'s completing handler finished, through {@code writer} (its own
   * transaction) instead of the store: handled, or fenced out if it lost its lease. Holds {@code
   * h}, so no renewal changes the revision between the read and the commit.
   *
   * @return whether the message is handled
   * @throws Exception what {@code writer} threw; nothing is recorded
   */
  boolean completeThrough(Held h, InboxCompletion.Writer writer) throws Exception {
    synchronized (h) {
      InboxMessage m = h.current();
      if (h.fencedOut()) {
        emit(InboxEvent.Kind.FENCED_OUT, m);
        return false;
      }
      InboxMessage done = handledOf(m);
      if (writer.write(m, done)) {
        h.wrote(done, nanos());
        emit(InboxEvent.Kind.HANDLED, done);
        return true;
      }
      h.fence();
      emit(InboxEvent.Kind.FENCED_OUT, m);
      return false;
    }
  }

  /** The handled successor of {@code m}, kept for its source's retention from now. */
  private InboxMessage handledOf(InboxMessage m) {
    Instant now = clock.instant();
    return m.toBuilder().state(InboxState.HANDLED).revision(m.revision() + 1).dueAt(null)
        .updatedAt(now).expiresAt(now.plus(retentionOf(m.source()))).build();
  }

  /** Records that {@code h}'s handler threw {@code failure}: queued after a backoff, or dead. */
  void fail(Held h, Throwable failure) {
    synchronized (h) {
      InboxMessage m = h.current();
      Instant now = clock.instant();
      int failures = m.failures() + 1;
      InboxMessage.Builder next = m.toBuilder().revision(m.revision() + 1).updatedAt(now)
          .failures(failures).lastFailure(InboxRecords.describeFailure(failure));
      boolean dead = failures >= maxFailures;
      InboxMessage after = dead ? next.state(InboxState.DEAD).dueAt(null).build()
          : next.state(InboxState.QUEUED).dueAt(now.plus(backoff.after(failures))).build();
      if (!h.fencedOut() && write(m, after)) {
        h.wrote(after, nanos());
        emit(dead ? InboxEvent.Kind.DEAD_LETTERED : InboxEvent.Kind.FAILED, after);
      } else {
        h.fence();
        emit(InboxEvent.Kind.FENCED_OUT, m);
      }
    }
  }

  /** Renews {@code h}'s lease if a third of it has passed since its last write. */
  void renewIfDue(Held h, long nowNanos) {
    synchronized (h) {
      if (h.fencedOut() || nowNanos - h.lastWriteNanos() < lease.toNanos() / 3) {
        return;
      }
      InboxMessage m = h.current();
      if (m.state() != InboxState.PROCESSING) {
        return;
      }
      Instant now = clock.instant();
      InboxMessage renewed = m.toBuilder().revision(m.revision() + 1).dueAt(now.plus(lease))
          .updatedAt(now).build();
      try {
        if (write(m, renewed)) {
          h.wrote(renewed, nowNanos);
        } else {
          h.fence();
          emit(InboxEvent.Kind.FENCED_OUT, m);
        }
      } catch (StoreException e) {
        LOG.log(Level.WARNING, "renewing the lease of " + m + " failed; trying again: "
            + e.getMessage());
      }
    }
  }

  void emit(InboxEvent.Kind kind, InboxMessage m) {
    try {
      listener.onEvent(new InboxEvent(kind, m.source(), m.id().safeKey()));
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "an inbox listener threw; ignored", e);
    }
  }

  Optional<InboxMessage> read(IntentId id) {
    return store.get(id).map(InboxRecords::fromRecord);
  }

  /** The message a claimed record holds, or empty (logged) when it is not an inbox message. */
  Optional<InboxMessage> messageOf(IntentRecord record) {
    if (!InboxRecords.isMessage(record)) {
      LOG.log(Level.WARNING, "the inbox store holds a record that is not an inbox message ("
          + record.id().safeKey() + "); give the inbox a store of its own");
      return Optional.empty();
    }
    try {
      return Optional.of(InboxRecords.fromRecord(record));
    } catch (StoreCorruptedException e) {
      LOG.log(Level.WARNING, "the inbox skips a damaged message " + record.id().safeKey(), e);
      return Optional.empty();
    }
  }

  private boolean write(InboxMessage expected, InboxMessage replacement) {
    return store.compareAndSet(InboxRecords.toRecord(expected),
        InboxRecords.toRecord(replacement));
  }

  private Duration retentionOf(String source) {
    return retentions.getOrDefault(source, defaultRetention);
  }

  private InboxMessage.Builder newMessage(String source, String messageId,
      @Nullable String type, byte[] payload, @Nullable String contentType, Instant now) {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(messageId, "messageId");
    return InboxMessage.builder().id(InboxRecords.idOf(source, messageId)).messageId(messageId)
        .type(type).payload(payload, contentType)
        .fingerprint(InboxRecords.fingerprintOf(payload)).revision(0).receivedAt(now)
        .updatedAt(now).expiresAt(now.plus(retentionOf(source)));
  }

  /**
   * Inserts {@code candidate} unless its id is stored.
   *
   * @return empty when inserted, else the stored message
   */
  private Optional<InboxMessage> insert(InboxMessage candidate) {
    IntentRecord record = InboxRecords.toRecord(candidate);
    // A message purged between the refused insert and the read is gone: insert again. Bounded,
    // since each round needs a purge to land in that gap.
    for (int round = 0; ; round++) {
      try {
        store.create(record);
        return Optional.empty();
      } catch (DuplicateIntentException taken) {
        Optional<InboxMessage> holder = read(candidate.id());
        if (holder.isPresent()) {
          return holder;
        }
        if (round >= 3) {
          throw new StoreException("the message " + candidate.id().safeKey() + " of "
              + candidate.source() + " was refused as stored but could not be read", taken);
        }
      }
    }
  }

  private void emitDuplicate(InboxMessage stored, InboxMessage delivered) {
    if (!stored.fingerprint().equals(delivered.fingerprint())) {
      LOG.log(Level.WARNING, "a delivery of " + stored + " carried other bytes than the stored"
          + " message; the stored message is kept");
      emit(InboxEvent.Kind.MISMATCH, stored);
    }
    emit(InboxEvent.Kind.DUPLICATE, stored);
  }

  private static InboxDeliveryException busy(InboxMessage m) {
    return new InboxDeliveryException(m + " is held by " + m.leaseOwner()
        + " now; let the queue deliver it again", true, null);
  }

  /** Builds an {@link Inbox}. Not thread-safe. */
  public static final class Builder {
    private final IntentStore store;
    private Clock clock = Clock.systemUTC();
    private String instance = "inbox-" + HexFormat.of().formatHex(randomBytes());
    private Duration lease = Duration.ofSeconds(60);
    private Duration retention = DEFAULT_RETENTION;
    private final Map<String, Duration> retentions = new HashMap<>();
    private int maxFailures = DEFAULT_MAX_FAILURES;
    private Duration firstBackoff = Duration.ofSeconds(1);
    private Duration maxBackoff = Duration.ofHours(1);
    private int workers = 4;
    private Duration pollInterval = Duration.ofSeconds(1);
    private InboxListener listener = e -> { };
    private boolean deferStart;
    private final Map<String, InboxHandler> handlers = new HashMap<>();
    private final Map<String, Function<InboxMessage, @Nullable String>> serialKeys =
        new HashMap<>();

    private Builder(IntentStore store) {
      this.store = Objects.requireNonNull(store, "store");
    }

    private static byte[] randomBytes() {
      byte[] b = new byte[6];
      new SecureRandom().nextBytes(b);
      return b;
    }

    /**
     * The handler the workers run for messages of {@code source}. A source without one is only
     * handled by {@link Inbox#once} callers; workers leave its messages queued.
     *
     * @throws IllegalArgumentException if {@code source} is not a usable name or has a handler
     */
    public Builder handler(String source, InboxHandler handler) {
      Objects.requireNonNull(handler, "handler");
      InboxRecords.idOf(source, "x");
      if (handlers.putIfAbsent(source, handler) != null) {
        throw new IllegalArgumentException("source " + source + " has a handler already");
      }
      return this;
    }

    /**
     * Runs the messages of {@code source} that share a key ({@code keyOf}: a customer's id read
     * from the payload; null for a message with none) one at a time in this instance, in the order
     * they were taken. Across instances of a fleet the key is not serialized: route a key to one
     * instance, or let the handler lock what it changes.
     */
    public Builder serialKey(String source, Function<InboxMessage, @Nullable String> keyOf) {
      InboxRecords.idOf(source, "x");
      serialKeys.put(source, Objects.requireNonNull(keyOf, "keyOf"));
      return this;
    }

    /**
     * How many handlers run at once in this instance (default 4; 0 runs none: accept only). It
     * also bounds what the workers hold: messages waiting behind a running one of their serial
     * key count against it, so a long backlog stays in the store.
     */
    public Builder workers(int workers) {
      if (workers < 0) {
        throw new IllegalArgumentException("workers must be >= 0, was " + workers);
      }
      this.workers = workers;
      return this;
    }

    /**
     * How long a run holds its message before another worker may take it over (default 60 s,
     * at least 1 s); renewed while the handler runs, once a third of it has passed.
     */
    public Builder lease(Duration lease) {
      if (lease.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new IllegalArgumentException("lease must be at least 1 s, was " + lease);
      }
      this.lease = lease;
      return this;
    }

    /**
     * How long a handled message is kept to recognize redeliveries (default {@link
     * #DEFAULT_RETENTION}): at least the senders' retry window.
     */
    public Builder retention(Duration retention) {
      this.retention = positive(retention, "retention");
      return this;
    }

    /** The retention of {@code source}'s handled messages, instead of the default. */
    public Builder retention(String source, Duration retention) {
      InboxRecords.idOf(source, "x");
      retentions.put(source, positive(retention, "retention"));
      return this;
    }

    /** How many failures dead-letter a message (default {@value #DEFAULT_MAX_FAILURES}). */
    public Builder maxFailures(int maxFailures) {
      if (maxFailures < 1) {
        throw new IllegalArgumentException("maxFailures must be >= 1, was " + maxFailures);
      }
      this.maxFailures = maxFailures;
      return this;
    }

    /**
     * The wait after the first failure (default 1 s), doubled after each further one up to {@code
     * max} (default 1 h); half of each wait is random.
     */
    public Builder backoff(Duration first, Duration max) {
      positive(first, "first backoff");
      if (max.compareTo(first) < 0) {
        throw new IllegalArgumentException("max backoff " + max + " is shorter than " + first);
      }
      this.firstBackoff = first;
      this.maxBackoff = max;
      return this;
    }

    /**
     * How often the store is asked for due messages when nothing wakes a worker (default 1 s):
     * retries after a backoff, and messages another instance stored.
     */
    public Builder pollInterval(Duration pollInterval) {
      this.pollInterval = positive(pollInterval, "pollInterval");
      return this;
    }

    /**
     * The clock that dates leases, due times and retention (default UTC system clock). Lease
     * renewal measures the time since a run's last write on the clock's monotonic reading, by the
     * client engine's rule: {@link System#nanoTime()} for the system clock, the clock's own for a
     * clock that gives one (a test's {@code ManualClock}), the clock's readings for any other.
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** This instance's name in the leases it holds (default a random one). */
    public Builder instance(String instance) {
      if (Objects.requireNonNull(instance, "instance").isBlank()) {
        throw new IllegalArgumentException("instance must not be blank");
      }
      this.instance = instance;
      return this;
    }

    /** Hears every {@link InboxEvent} (metrics, logs). */
    public Builder listener(InboxListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Builds an inbox whose workers take no message until {@link Inbox#start()}: for a container
     * that builds the inbox before the handlers' objects exist and starts it once they do.
     * {@link Inbox#accept} and {@link Inbox#once} work before the start (an accepted message waits
     * in the store).
     */
    public Builder deferStart() {
      this.deferStart = true;
      return this;
    }

    /**
     * Builds the inbox and starts its dispatcher and, unless {@link #deferStart()} was called, its
     * workers.
     */
    public Inbox build() {
      return new Inbox(this);
    }

    private static Duration positive(Duration d, String name) {
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be positive, was " + d);
      }
      return d;
    }
  }
}
