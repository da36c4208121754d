package dev.oncely.client;

import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.event.LoggingListener;
import dev.oncely.client.internal.Defaults;
import dev.oncely.client.internal.http.CallScopedStore;
import dev.oncely.client.internal.http.InterceptedCall;
import dev.oncely.client.internal.http.InterceptorEngine;
import dev.oncely.client.internal.http.OkHttpVersionCheck;
import dev.oncely.client.internal.http.Scopes;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import okhttp3.Call;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * An OkHttp interceptor that makes unsafe calls idempotent: install it with {@code
 * interceptor.installOn(new OkHttpClient.Builder())}, which adds it as an application interceptor
 * (the engine) and as a network interceptor (which hides every redirect of an intent from OkHttp,
 * so it is judged, never followed to another origin with the app's headers and the key). A client
 * that follows redirects and runs it only as an application interceptor is refused before anything
 * is stored or sent.
 *
 * <p>For each call whose method is in {@link Builder#methods} (default {@code POST} and {@code PATCH})
 * it:
 * <ul>
 *   <li>uses the key header the app set, unchanged, or mints a random key for this OkHttp call and
 *       keeps it across all of its retries, also when an app interceptor outside this one runs the
 *       chain again (every write of the body is counted: such a resend makes the intent maybe
 *       delivered);
 *   <li>buffers the body once and sends the same bytes on every attempt;
 *   <li>retries connect failures, timeouts, resets and transient statuses with full-jitter backoff,
 *       {@code Retry-After} and the {@link RetryBudget}; waits out {@code 409 in progress}; follows
 *       a {@code 202} to its {@code Location}/{@code Content-Location} with GET, or resends;
 *   <li>closes every response it discards; stops when the call is canceled or its call timeout
 *       fires (after the first byte left, the record stays {@code PENDING}, maybe delivered);
 *   <li>if a {@link Builder#store store} is configured, records the intent (state, attempts,
 *       response) and answers a repeat of a finished key from the store without I/O; refuses a
 *       changed body under a used key with {@link PayloadMismatchException}.
 * </ul>
 *
 * <p>What it returns: the final response (2xx, a business 4xx the decision table trusts, the
 * server's answer when the intent needs reconciliation), or the last response when the attempts
 * or the deadline ran out while the server kept answering {@code 202} or {@code 5xx}. It throws:
 * <ul>
 *   <li>{@link IntentIOException} with an {@link IntentPendingException} cause when the outcome is
 *       not known: no attempt got an answer before the attempts or the deadline ran out (the last
 *       {@code SocketTimeoutException} or reset is the pending exception's cause, never thrown
 *       bare), or the last answer could be misread as final (a 3xx or 4xx the decision table did
 *       not accept, such as the {@code 409} of a server that kept answering it: reason {@link
 *       PendingReason#KEY_IN_USE}); {@link IntentIOException#outcome()}
 *       is then the {@link IntentOutcome.Pending} the intent API would report;
 *   <li>{@link IntentIOException} with a {@link NeedsReconciliationException} cause ({@code
 *       outcome()}: {@link IntentOutcome.NeedsReconciliation}) when the intent cannot be resent
 *       safely;
 *   <li>{@link IntentIOException} with {@link PayloadMismatchException}, {@link
 *       BodyTooLargeException}, {@link InvalidIntentException} (a key the app set that no intent
 *       can carry: blank, over 255 characters, control characters) or a store failure when it
 *       refuses to send ({@code outcome()} empty);
 *   <li>{@link RetryBudgetExhaustedException} when the budget refused a retry;
 *   <li>OkHttp's own {@code IOException} ("Canceled", or the call timeout's) when the app canceled
 *       the call or its call timeout fired: the record keeps what is known (read it with {@link
 *       #outcomeOf(IntentTag)}).
 * </ul>
 * Nothing but {@code IOException}s leaves {@code intercept}, so an {@code enqueue()} callback
 * always hears of it. Every answer is judged by the same decision core as {@link
 * IdempotentClient} (see docs/client.md, "Decision table").
 *
 * <p><b>Durable intents.</b> A request tagged with an {@link IntentTag} ({@code
 * Request.Builder.tag(IntentTag.class, tag)}, or Retrofit's {@code @Tag}) and sent through an
 * interceptor with a store is a durable intent: its record is stored before the first byte, a call
 * re-issued after a restart with the same business id gets the same key, and {@link
 * #resumePending(Call.Factory, Consumer)} drives unfinished records through the app's own client after a
 * restart. <b>Without a tag</b> the key lives only as long as the call (unless the app set the key
 * header itself): a restart loses it, and a new call is a new intent.
 *
 * <p><b>One call at a time per intent.</b> Calls through one interceptor that belong to the same
 * intent (the same business id in a scope and operation, or the same key the app set itself) run
 * one after the other: a second call waits while the first runs, then is answered from the
 * first's record (its stored response, or it drives the intent on if the first left it pending).
 * A waiting call gives up with {@code IOException("Canceled")} when it is canceled or its call
 * timeout fires. Across processes the store's compare-and-set keeps one owner per record.
 *
 * <p>Thread-safe; share one instance.
 */
public final class IdempotencyInterceptor implements Interceptor, AutoCloseable {
  /**
   * Response header ({@code true}) on an answer that came from the configured store instead of the
   * network: a repeat of a key whose call already finished.
   */
  public static final String STORED_RESPONSE_HEADER = InterceptedCall.STORED_RESPONSE_HEADER;

  private static final java.util.logging.Logger LOG =
      java.util.logging.Logger.getLogger(IdempotencyInterceptor.class.getName());

  private final InterceptorEngine engine;

  private IdempotencyInterceptor(Builder b) {
    this.engine = new InterceptorEngine(
        b.settings(b.store != null ? b.store : new CallScopedStore()), b.methods, b.scope,
        b.operation, b.maxBodyBytes, tag -> tag::mintKey);
  }

  /** Returns a builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** An interceptor with every default: IETF dialect, default policy, POST and PATCH, no store. */
  public static IdempotencyInterceptor create() {
    return builder().build();
  }

  /**
   * Adds this interceptor to {@code builder} as an application interceptor and as a network
   * interceptor too, which sees every request of an intent OkHttp puts on a connection: no
   * redirect of an intent is followed by OkHttp before it is judged, every request on the wire is
   * a counted attempt (OkHttp's own resend of a bodyless {@code DELETE} included), and a {@code
   * 401}/{@code 407} reaches the engine, which asks the client's authenticator for fresh
   * credentials once and resends the same key and bytes. Call it where you would call {@code
   * addInterceptor}: interceptors added before it run outside it (their credentials are seen by
   * it), those added after it run inside; a network interceptor added before it sees such a
   * refusal as status 299 with an {@code Oncely-Hidden-Status} header. A client that follows
   * redirects (OkHttp's default), or resends a bodyless intent after a dropped connection, and
   * runs this interceptor only as an application interceptor is refused with an {@link
   * IntentIOException} before anything of an intent is stored or sent.
   *
   * @return {@code builder}
   */
  public OkHttpClient.Builder installOn(OkHttpClient.Builder builder) {
    Objects.requireNonNull(builder, "builder");
    return builder.addInterceptor(this).addNetworkInterceptor(engine.networkRole());
  }

  /**
   * The interceptor's network role, which {@link #installOn} adds with {@code
   * addNetworkInterceptor}; for a client assembled by hand, add this interceptor with {@code
   * addInterceptor} and this one with {@code addNetworkInterceptor}, in the places {@code
   * installOn} would.
   */
  public Interceptor networkInterceptor() {
    return engine.networkRole();
  }

  /**
   * Stops every intent this interceptor drives: their calls on the wire are canceled, waiting
   * calls stop at once, and each intent ends {@code PENDING} (maybe delivered once a byte left)
   * and stays resumable; the calls throw {@link IntentIOException} or the cancel's {@code
   * IOException}. Once this returns, no attempt of its intents reaches the wire, and a later call
   * of an intent through it is refused with {@link IntentIOException} before anything is stored
   * or sent (calls that are not intents pass through as before). Waits up to {@value
   * IdempotentClient#CLOSE_GRACE_SECONDS} s for running drives to record how they stopped. Does not
   * close the store. Idempotent.
   */
  @Override
  public void close() {
    engine.close(java.time.Duration.ofSeconds(Defaults.CLOSE_GRACE_SECONDS));
  }

  @Override
  public Response intercept(Chain chain) throws IOException {
    return engine.intercept(chain);
  }


  /**
   * Drives every unfinished record of the store again (after a restart) through {@code client},
   * the app's own {@code OkHttpClient} with this interceptor in it: each attempt is a call of its
   * own through that client, so the app's interceptors add credentials, tracing and certificates
   * again (records never hold secrets). Each attempt carries the record's stored key in its stored
   * wire form, its exact bytes and non-secret headers; a record with a stored status URL continues
   * polling it; one that may have been delivered and is past the key retention is not sent (it
   * needs reconciliation). Records written by an {@link IdempotentClient} on the same store are
   * resumed the same way, and the other way round.
   *
   * <p>No app caller waits on these drives, so none holds a thread while it waits: a backoff, a
   * {@code Retry-After}, a {@code 409} in progress or a {@code 202} poll is a timer, as in the
   * intent API, and a backlog the server sheds drains at the pace the server asks. At most 16
   * attempts are on {@code client} at once (the interceptor's resume threads); the drives start
   * oldest first with the limits of {@link IdempotentClient#resumePending()} (at most {@value
   * IdempotentClient#RESUMES_STARTING_AT_ONCE} starting, {@value IdempotentClient#RESUMES_AT_ONCE}
   * under way, waiting ones included), each reading its record when it starts (one finished
   * meanwhile completes from the store without I/O), so a large backlog is held as ids.
   * An intent already driven in this process (a live call of it) is never driven twice at once:
   * its resume starts when that drive ended.
   * {@link #close()} stops them all; each stays resumable.
   *
   * @param client the app's client; it must contain this interceptor (as {@link
   *     #installOn(OkHttpClient.Builder)} adds it)
   * @param outcomes told the outcome of each resumed intent (the original callback is gone), on
   *     one of the interceptor's threads; its exceptions are caught and logged
   * @return one future per unfinished record, oldest first, completed with its stored outcome (or
   *     exceptionally with the {@code StoreException} reading it threw); a record whose resume had
   *     not started when this interceptor was {@linkplain #close() closed} is not sent and reads
   *     {@link PendingReason#INTERRUPTED}
   * @throws IllegalStateException if the interceptor has no store, or {@code client} is an {@code
   *     OkHttpClient} that does not run this interceptor (or runs it only as an application
   *     interceptor while it follows redirects or resends on its own)
   * @throws dev.oncely.client.StoreException if the store cannot list the records
   */
  public List<CompletableFuture<IntentOutcome>> resumePending(Call.Factory client,
      Consumer<IntentOutcome> outcomes) {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(outcomes, "outcomes");
    engine.store();
    requireInstalledOn(client);
    List<CompletableFuture<IntentOutcome>> futures = engine.resumeAll(client);
    for (CompletableFuture<IntentOutcome> future : futures) {
      future.thenAccept(outcome -> {
        try {
          outcomes.accept(outcome);
        } catch (RuntimeException e) {
          LOG.log(java.util.logging.Level.WARNING, "the resume outcome listener failed", e);
        }
      });
    }
    return futures;
  }

  /**
   * Drives the stored record of intent {@code id} once more through {@code client} (the app's own
   * client with this interceptor in it), like {@link #resumePending} does for every unfinished
   * record (after the drive of it already running in this process ended, if one runs); {@link
   * DueWorkScheduler#builder(IdempotencyInterceptor, Call.Factory)} calls it at each record's due
   * time. A finished record, or one that needs reconciliation, completes the future with its
   * stored outcome and sends nothing.
   *
   * @return a future completed with the stored outcome, or exceptionally with a {@code
   *     StoreException} if the store has no such record
   * @throws IllegalStateException if the interceptor has no store, or {@code client} is an {@code
   *     OkHttpClient} that does not run this interceptor (or runs it only as an application
   *     interceptor while it follows redirects or resends on its own)
   */
  public CompletableFuture<IntentOutcome> resume(Call.Factory client, IntentId id) {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(id, "id");
    engine.store();
    requireInstalledOn(client);
    return engine.resume(client, id);
  }

  /**
   * Refuses an OkHttp client that would send a resumed attempt without this interceptor.
   *
   * @throws IllegalStateException naming the fix
   */
  void requireInstalledOn(Call.Factory client) {
    engine.requireInstalledOn(client, this);
  }


  /**
   * The stored outcome of the intent {@code tag} names (its scope, operation and business id),
   * without I/O: how an app learns what happened to a tagged call that failed, timed out or was
   * canceled. Empty if the store has no record of it (the call never reached the interceptor, or
   * was refused before its record was stored). An unfinished record reads as {@link
   * IntentOutcome.Pending}: {@link PendingReason#IN_PROGRESS} while a drive of it runs in this
   * process, else the reason its last drive stopped with; re-issue the same tagged call, or
   * {@link #resume(Call.Factory, IntentId)} it, to drive it on with the same key.
   *
   * @throws IllegalArgumentException if {@code tag} has no business id (only the call knew its key)
   * @throws IllegalStateException if the interceptor has no store
   * @throws StoreException if the store fails
   */
  public java.util.Optional<IntentOutcome> outcomeOf(IntentTag tag) {
    return engine.outcomeOf(tag);
  }

  /**
   * The stored outcome of intent {@code id}, read as {@link #outcomeOf(IntentTag)} reads it.
   *
   * @throws IllegalStateException if the interceptor has no store
   * @throws StoreException if the store fails
   */
  public java.util.Optional<IntentOutcome> outcomeOf(IntentId id) {
    return engine.outcomeOf(id);
  }

  /** Whether {@link #close()} was called (the due-work scheduler stops then). */
  boolean isClosed() {
    return engine.isClosed();
  }

  /** The store this interceptor records intents in. */
  IntentStore store() {
    return engine.store();
  }

  /**
   * Builds {@link IdempotencyInterceptor}s. Not thread-safe; each setter validates its argument and
   * throws {@link NullPointerException} (naming the setting) for a null one.
   * Defaults: {@link Dialects#ietf()}, {@link RetryPolicy#defaults()}, a new {@link
   * RetryBudget#standard()}, {@link LoggingListener}, methods {@code POST} and {@code PATCH}, no
   * store, scope = the URL's origin and a digest of its credentials, operation = method and path, body limit {@link
   * IntentSpec#DEFAULT_MAX_BODY_BYTES}.
   */
  public static final class Builder extends DriveSettingsBuilder<Builder> {
    private IntentStore store;
    private final Set<String> methods = new TreeSet<>(Set.of("POST", "PATCH"));
    private Function<Request, String> scope = Scopes::ofRequest;
    private Function<Request, String> operation =
        r -> cut(r.method() + " " + r.url().encodedPath());
    private long maxBodyBytes = Defaults.MAX_BODY_BYTES;

    private Builder() {}

    private static String cut(String s) {
      return s.length() <= 255 ? s : s.substring(0, 255);
    }

    /** Sets a store that records every intercepted intent (default: none). */
    public Builder store(IntentStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /**
     * Sets the methods that get a key (default {@code POST}, {@code PATCH}).
     *
     * @throws IllegalArgumentException if none is given or one is blank
     */
    public Builder methods(String... methods) {
      if (methods == null || methods.length == 0) {
        throw new IllegalArgumentException("methods must name at least one HTTP method");
      }
      Set<String> chosen = new TreeSet<>();
      for (String m : methods) {
        if (m == null || m.isBlank()) {
          throw new IllegalArgumentException("methods must not contain a blank name");
        }
        chosen.add(m.trim().toUpperCase(Locale.ROOT));
      }
      this.methods.clear();
      this.methods.addAll(chosen);
      return this;
    }

    /**
     * Sets how an untagged request's key scope is chosen (default: the URL's origin, plus a short
     * one-way digest of its {@code Authorization} and {@code Proxy-Authorization} headers, so two
     * accounts never share a record; a tag's scope always wins).
     */
    public Builder scope(Function<Request, String> scope) {
      this.scope = Objects.requireNonNull(scope, "scope");
      return this;
    }

    /** Sets how a request's operation name is chosen (default: method and path). */
    public Builder operation(Function<Request, String> operation) {
      this.operation = Objects.requireNonNull(operation, "operation");
      return this;
    }

    /**
     * Sets the largest body the interceptor buffers (default 1 MiB); a larger body, or one whose
     * {@code Content-Encoding} (gzip, deflate) decodes to more, fails the call with {@link
     * BodyTooLargeException} before anything is stored or sent.
     *
     * @throws IllegalArgumentException if it is negative
     */
    public Builder maxBodyBytes(long maxBodyBytes) {
      if (maxBodyBytes < 0) {
        throw new IllegalArgumentException("maxBodyBytes must be >= 0, was " + maxBodyBytes);
      }
      this.maxBodyBytes = maxBodyBytes;
      return this;
    }

    /**
     * Returns the interceptor.
     *
     * @throws IllegalStateException if the class path serves OkHttp 3 or 4 instead of OkHttp 5
     *     (the message names the BOM that fixes the build)
     */
    public IdempotencyInterceptor build() {
      OkHttpVersionCheck.requireOkHttp5();
      return new IdempotencyInterceptor(this);
    }
  }
}
