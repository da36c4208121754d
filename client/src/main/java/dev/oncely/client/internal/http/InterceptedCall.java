package dev.oncely.client.internal.http;

import dev.oncely.client.internal.StoredHeaders;
import dev.oncely.client.internal.Keys;
import dev.oncely.client.internal.drive.Admission;
import dev.oncely.client.internal.drive.DriveEnd;
import dev.oncely.client.internal.drive.DriveSession;
import dev.oncely.client.internal.drive.DriveLoop;
import dev.oncely.client.internal.drive.DriveOwner;
import dev.oncely.client.internal.drive.DriveRegistry;
import dev.oncely.client.internal.drive.DriveSettings;
import dev.oncely.client.internal.drive.RecordKeeper;
import dev.oncely.client.IntentIOException;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentState;
import dev.oncely.client.InvalidIntentException;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.SecretHeaders;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.Supplier;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * The interceptor's front end of the {@link DriveLoop}, for one {@code intercept} invocation: it
 * resolves the call's identity (the app's own key, a tag's business id, or a key
 * minted once per OkHttp call), buffers the body once, admits the record exactly as the intent API
 * does ({@link Admission}), drives it through the app's chain ({@link ChainWire}) and renders how
 * the drive ended as a {@link Response} or an {@link IOException}. Only {@code IOException}s leave
 * {@link #run()}.
 */
public final class InterceptedCall {
  /** Response header added when the answer comes from the store instead of the network. */
  public static final String STORED_RESPONSE_HEADER = CallAnswers.STORED_RESPONSE_HEADER;

  /**
   * The interceptor's settings.
   *
   * @param networkHalf the interceptor as the app's client must also run it, as a network
   *     interceptor, when it follows redirects
   */
  public record Config(DriveSession session, Set<String> methods,
      Function<Request, String> scope, Function<Request, String> operation, long maxBodyBytes,
      Interceptor networkHalf) {
    /** The settings every drive of the interceptor runs with. */
    public DriveSettings drive() {
      return session.settings();
    }

    /** The owner of the interceptor's drives. */
    public DriveOwner owner() {
      return session.owner();
    }
  }

  /**
   * The identity an app attached to the request ({@code IntentTag}): scope, operation, optional
   * business id, the JSON fields left out of the fingerprint, its own retry policy (null: the
   * interceptor's), and how to mint a key when neither the request nor the store has one. Null
   * for an untagged call, whose key lives only as long as the call.
   */
  public record Identity(String scope, String operation, String businessId,
      Set<String> volatileFields, RetryPolicy retryPolicy, Supplier<String> mint) {}

  private final Config c;
  private final Interceptor.Chain chain;
  private final Identity identity;

  /** Prepares the call for {@code chain}; {@code identity} may be null. */
  public InterceptedCall(Config config, Interceptor.Chain chain, Identity identity) {
    this.c = config;
    this.chain = chain;
    this.identity = identity;
  }

  /** Runs the call to its final response; throws only {@link IOException}s. */
  public Response run() throws IOException {
    try {
      return runChecked();
    } catch (RuntimeException e) {
      // Refusals (payload changed, invalid key, a store failure) and any unexpected exception:
      // OkHttp rethrows a non-IOException on its dispatcher thread, which crashes an Android app.
      throw new IntentIOException(e);
    }
  }

  private Response runChecked() throws IOException {
    Request original = chain.request();
    NetworkHalf.checkInstalled(chain, c.networkHalf(), bodyless(original));
    if (c.owner().stopped() != null) {
      throw closedBeforeSend();
    }
    CallMemory memory = CallMemory.of(chain.call());
    c.owner().calls().add(chain.call());
    try {
      return runOwned(original, memory);
    } finally {
      c.owner().calls().remove(chain.call());
    }
  }

  private Response runOwned(Request original, CallMemory memory) throws IOException {
    String appHeader = AppKeys.headerOf(original, c.drive().dialect());
    IntentRecord fresh = fresh(original, memory, appHeader, appKeyOf(original, appHeader));
    DriveSession.Plan plan = new DriveSession.Plan(null, false,
        record -> wire(original, memory, record), memory.writes().count() > 0,
        () -> chain.call().isCanceled() ? "the call was canceled" : null);
    DriveEnd end;
    try {
      end = c.session().admit(fresh, plan).join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException refused ? refused : e;
    } finally {
      if (c.drive().store() instanceof CallScopedStore calls
          && !DriveRegistry.process().isDriven(calls, fresh.id())) {
        // The record lived as long as this call (no store was given); a call of the same key
        // that entered meanwhile keeps it until it returns.
        calls.forget(fresh.id());
      }
    }
    if (end.isNotStarted()) {
      if (end.cause() instanceof IOException stopped) {
        throw stopped;
      }
      throw closedBeforeSend();
    }
    IntentId id = end.record() != null ? end.record().id() : fresh.id();
    return CallAnswers.render(chain, original, id, end);
  }

  /** The wire the attempts of {@code record} go through: the app's chain. */
  private ChainWire wire(Request original, CallMemory memory, IntentRecord record) {
    List<String> keyHeaders = new ArrayList<>(AppKeys.KNOWN_KEY_HEADERS);
    keyHeaders.add(c.drive().dialect().keyHeader());
    if (record.keyHeader() != null) {
      keyHeaders.add(record.keyHeader());
    }
    return new ChainWire(chain, original, HttpParts.body(record.method(), record.body(),
        record.mediaType(), memory.writes()), memory.writes(), keyHeaders, c.owner(),
        c.drive().maxResponseBytes(), c.drive().credentialOrigins());
  }

  private IntentIOException closedBeforeSend() {
    return new IntentIOException(new IllegalStateException(c.owner().stopped()
        + "; nothing of this call was sent"));
  }

  /** Whether {@code request} goes to the wire without a body (see {@link HttpParts#bodyless}). */
  private static boolean bodyless(Request request) throws IOException {
    RequestBody body = request.body();
    if (body == null) {
      return true;
    }
    MediaType type = body.contentType();
    return HttpParts.bodyless(request.method(), body.contentLength(),
        type == null ? null : type.toString());
  }

  /** The key the app set under {@code appHeader}, or null. */
  private String appKeyOf(Request original, String appHeader) {
    return appHeader == null ? null
        : AppKeys.parse(original.header(appHeader), c.drive().dialect());
  }

  /** The intent's id; a key, scope or operation it cannot carry is an invalid intent. */
  private IntentId intentIdOf(Request original, CallMemory memory, String key) {
    try {
      // An untagged call's scope is fixed by its first run, like its key: a later run of the same
      // call (an outer retry) after the app refreshed its token is the same intent.
      return identity != null ? IntentId.of(identity.scope(), identity.operation(), key)
          : IntentId.of(memory.scope(() -> c.scope().apply(original)),
              c.operation().apply(original), key);
    } catch (NullPointerException e) {
      throw new InvalidIntentException("intent id", e.getMessage() + " is null");
    } catch (IllegalArgumentException e) {
      throw new InvalidIntentException("intent id", e.getMessage());
    }
  }

  /** The record this call would create: the app's request with its key, minus secret headers. */
  private IntentRecord fresh(Request original, CallMemory memory, String appHeader,
      String appKey) throws IOException {
    byte[] body = new byte[0];
    String mediaType = null;
    if (original.body() != null) {
      body = BodyBuffer.read(original.body(), c.maxBodyBytes());
      MediaType type = original.body().contentType();
      mediaType = type == null ? null : type.toString();
    }
    String key;
    String keyHeader;
    String keyValue;
    if (appHeader != null) {
      // The app set the key itself, maybe under another dialect's header: that is the intent's
      // key, sent exactly as the app wrote it and never beside a second, different key.
      key = appKey;
      keyHeader = appHeader;
      keyValue = original.header(appHeader);
    } else {
      key = memory.key(identity != null ? identity.mint() : Keys::random);
      keyHeader = c.drive().dialect().keyHeader();
      keyValue = c.drive().dialect().formatKey(key);
    }
    Map<String, List<String>> headers = HttpParts.toMap(original.headers());
    headers.keySet().removeIf(n -> SecretHeaders.isSecret(n) || n.equalsIgnoreCase(keyHeader)
        || AppKeys.KNOWN_KEY_HEADERS.stream().anyMatch(n::equalsIgnoreCase));
    IntentId id = intentIdOf(original, memory, key);
    // Refusals of the payload (malformed JSON, a body not in its declared coding, decoded past
    // the limit) leave with their own type, before anything is stored or sent.
    String fingerprint = IntentSpec.fingerprintOf(body, mediaType,
        StoredHeaders.contentCoding(headers), identity != null ? identity.volatileFields() : Set.of(),
        c.maxBodyBytes());
    try {
      // Created already claimed, before the first byte: one durable write, and a crash during
      // the first attempt leaves IN_FLIGHT, which reads as maybe delivered.
      return RecordKeeper.fresh(c.drive(), IntentState.IN_FLIGHT)
        .id(id)
        .businessId(identity != null ? identity.businessId() : null)
        .method(original.method())
        .url(original.url().toString())
        .headers(headers)
        .body(body, mediaType)
        .fingerprint(fingerprint)
        .keyWireForm(keyHeader, keyValue)
        .maybeDelivered(memory.writes().count() > 0)
        .retryPolicy(identity != null ? identity.retryPolicy() : null)
        .build();
    } catch (IllegalArgumentException e) {
      // A header name or URL a record cannot hold (Identifiers): refused before any I/O.
      throw new InvalidIntentException("request", e.getMessage());
    }
  }


}
