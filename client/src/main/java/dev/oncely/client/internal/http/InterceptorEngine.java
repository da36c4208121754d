package dev.oncely.client.internal.http;

import dev.oncely.client.IntentIOException;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentStore;
import dev.oncely.client.IntentTag;
import dev.oncely.client.internal.drive.DriveOwner;
import dev.oncely.client.internal.drive.DriveSession;
import dev.oncely.client.internal.drive.DriveSettings;
import dev.oncely.client.internal.drive.StoredOutcomes;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import okhttp3.Call;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * The interceptor's engine behind {@code IdempotencyInterceptor}: its {@link DriveSession}, the
 * per-call front end ({@link InterceptedCall}), the resumes through the app's client ({@link
 * ResumeDrives}) and the network role ({@link NetworkRole}). The facade only checks arguments.
 * Thread-safe.
 */
public final class InterceptorEngine {
  private final NetworkRole networkRole = new NetworkRole();
  private final InterceptedCall.Config config;
  private final ResumeDrives resumes;
  private final Function<IntentTag, Supplier<String>> minter;

  /**
   * An engine over {@code settings} (an interceptor built without a store passes a {@link
   * CallScopedStore}) for calls whose method is in {@code methods} or that carry a tag;
   * {@code minter} gives the key minting of a tag (how the tag's key strategy mints).
   */
  public InterceptorEngine(DriveSettings settings, Set<String> methods,
      Function<Request, String> scope, Function<Request, String> operation, long maxBodyBytes,
      Function<IntentTag, Supplier<String>> minter) {
    this.minter = minter;
    DriveSession session = new DriveSession(settings, new DriveOwner("the interceptor"));
    this.config = new InterceptedCall.Config(session, Set.copyOf(methods), scope, operation,
        maxBodyBytes, networkRole);
    this.resumes = new ResumeDrives(session);
  }

  /** The network role, added with {@code addNetworkInterceptor}. */
  public Interceptor networkRole() {
    return networkRole;
  }

  /**
   * Runs one call through {@code chain}: an attempt of a resumed drive, an intent (a tag, or a
   * method the interceptor takes), or a call that passes through untouched.
   *
   * @throws IntentIOException when the application role was added as a network interceptor
   */
  public Response intercept(Interceptor.Chain chain) throws IOException {
    if (chain.connection() != null) {
      throw new IntentIOException(new IllegalStateException("the IdempotencyInterceptor was added"
          + " as a network interceptor; it is the application role: add it with"
          + " installOn(builder), which adds its network role (networkInterceptor()) too"));
    }
    Request request = chain.request();
    ResumeAttempt attempt = request.tag(ResumeAttempt.class);
    if (attempt != null) {
      // One attempt of a drive this interceptor resumes: the drive is already owned and judged.
      return attempt.proceed(chain, config);
    }
    IntentTag tag = request.tag(IntentTag.class);
    if (tag == null && !config.methods().contains(request.method())) {
      return chain.proceed(request);
    }
    InterceptedCall.Identity identity = tag == null ? null : new InterceptedCall.Identity(
        tag.scope(), tag.operation(), tag.businessId(), tag.volatileFields(), tag.retryPolicy(),
        minter.apply(tag));
    return new InterceptedCall(config, chain, identity).run();
  }

  /**
   * Refuses a client that does not run {@code appRole}, or follows redirects or resends on its own
   * without the network role: every resumed attempt would be refused unsent.
   *
   * @throws IllegalStateException naming what is missing
   */
  public void requireInstalledOn(Call.Factory client, Interceptor appRole) {
    if (!(client instanceof OkHttpClient ok)) {
      return;
    }
    if (!ok.interceptors().contains(appRole)) {
      throw new IllegalStateException("the client given to resume does not run this interceptor;"
          + " pass the OkHttpClient built with interceptor.installOn(builder)");
    }
    if (!ok.networkInterceptors().contains(networkRole)
        && (ok.followRedirects() || ok.retryOnConnectionFailure())) {
      throw new IllegalStateException("the client given to resume follows redirects or resends"
          + " requests on its own without this interceptor as a network interceptor; pass the"
          + " OkHttpClient built with interceptor.installOn(builder)");
    }
  }

  /** Resumes every unfinished record through {@code client}, oldest first. */
  public List<CompletableFuture<IntentOutcome>> resumeAll(Call.Factory client) {
    store();
    return resumes.resumeAll(client);
  }

  /** Resumes the stored record of {@code id} through {@code client}. */
  public CompletableFuture<IntentOutcome> resume(Call.Factory client, IntentId id) {
    store();
    return resumes.resume(client, id);
  }

  /** The stored outcome of the intent {@code tag} names. */
  public Optional<IntentOutcome> outcomeOf(IntentTag tag) {
    return StoredOutcomes.byTag(store(), tag);
  }

  /** The stored outcome of intent {@code id}. */
  public Optional<IntentOutcome> outcomeOf(IntentId id) {
    return StoredOutcomes.byId(store(), id);
  }

  /**
   * The store the app gave.
   *
   * @throws IllegalStateException if the interceptor was built without one
   */
  public IntentStore store() {
    if (config.drive().store() instanceof CallScopedStore) {
      throw new IllegalStateException("resuming needs a store: set IdempotencyInterceptor"
          + ".builder().store(..)");
    }
    return config.drive().store();
  }

  /** Whether {@link #close} was called. */
  public boolean isClosed() {
    return config.owner().stopped() != null;
  }

  /** Stops every drive and waits up to {@code grace} for them to record how they stopped. */
  public void close(Duration grace) {
    config.owner().close(grace);
    resumes.shutdown();
  }
}
