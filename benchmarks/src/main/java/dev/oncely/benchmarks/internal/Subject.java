package dev.oncely.benchmarks.internal;

import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentStore;
import dev.oncely.client.event.IntentListener;
import java.nio.file.Path;
import java.util.function.LongFunction;
import okhttp3.OkHttpClient;

/**
 * One thing that sends payment intents: plain OkHttp, the SDK's intent API over one store engine,
 * or OkHttp with the SDK's {@link IdempotencyInterceptor} installed (without a store or over one
 * engine). Opening it creates a fresh store in a scratch directory; closing it closes the client
 * (or interceptor) and store and deletes the directory.
 */
public final class Subject implements AutoCloseable {
  private final String label;
  private final Load.Op op;
  private final AutoCloseable client;
  private final IntentStore store;
  private final Path dir;

  private Subject(String label, Load.Op op, AutoCloseable client, IntentStore store, Path dir) {
    this.label = label;
    this.op = op;
    this.client = client;
    this.store = store;
    this.dir = dir;
  }

  /** The label of plain OkHttp. */
  public static final String PLAIN = "plain OkHttp";

  /** The label of OkHttp with the interceptor over {@code engine}'s store, or without a store. */
  public static String interceptorLabel(Engine engine) {
    return engine == null ? "interceptor, no store" : "interceptor + " + engine.label();
  }

  /**
   * OkHttp with an {@link IdempotencyInterceptor} installed ({@code installOn}, every other setting
   * its default: default listener, policy, dialect), over a fresh {@code engine} store, or built
   * without a store when {@code engine} is null (the default most users have). Each intent is one
   * untagged POST of {@code body(seq)} without a key header (the interceptor mints the key) on a
   * client derived from {@code http} (same pool and dispatcher); true for a {@code 201}.
   */
  public static Subject interceptor(Engine engine, OkHttpClient http, String url,
      LongFunction<String> body) {
    Path dir = engine != null && engine.durable()
        ? TempDirs.create("interceptor-" + engine.name().toLowerCase()) : null;
    IntentStore store = engine == null ? null : engine.open(dir);
    IdempotencyInterceptor.Builder builder = IdempotencyInterceptor.builder();
    if (store != null) {
      builder.store(store);
    }
    IdempotencyInterceptor interceptor = builder.build();
    OkHttpClient intercepted = interceptor.installOn(http.newBuilder()).build();
    Load.Op op = seq -> Http.untaggedPost(intercepted, url, body.apply(seq));
    return new Subject(interceptorLabel(engine), op, interceptor, store, dir);
  }

  /** Labels in comparison order: plain first, then the SDK per engine. */
  public static String label(Engine engine) {
    return engine == null ? PLAIN : "SDK + " + engine.label();
  }

  /** Plain OkHttp: one keyed POST per intent, no record, no retry. */
  public static Subject plain(OkHttpClient http, String url) {
    return plain(http, url, Payloads::payment);
  }

  /** Plain OkHttp sending {@code body(seq)}: one keyed POST per intent, no record, no retry. */
  public static Subject plain(OkHttpClient http, String url, LongFunction<String> body) {
    return new Subject(PLAIN, seq -> Http.plainPost(http, url, body.apply(seq)), null, null, null);
  }

  /**
   * The SDK over {@code engine} with {@link IntentListener#NONE}: each intent is built ({@code
   * IntentSpec}: key minted, payload fingerprinted) and executed on the calling thread until it
   * completes.
   */
  public static Subject sdk(Engine engine, OkHttpClient http, String url) {
    return sdk(engine, http, url, IntentListener.NONE, Payloads::payment);
  }

  /**
   * The SDK over {@code engine} with {@code listener}, sending {@code body(seq)}; {@code null}
   * keeps the builder's default listener, as a user who sets none gets.
   */
  public static Subject sdk(Engine engine, OkHttpClient http, String url, IntentListener listener,
      LongFunction<String> body) {
    Path dir = engine.durable() ? TempDirs.create(engine.name().toLowerCase()) : null;
    return sdk(engine, engine.open(dir), dir, http, url, listener, body);
  }

  /**
   * The SDK with the default listener over the {@code engine} store already in {@code dir},
   * sending {@code body(seq)}; closing it closes the store and leaves the directory.
   */
  public static Subject sdkIn(Engine engine, Path dir, OkHttpClient http, String url,
      LongFunction<String> body) {
    return sdk(engine, engine.open(dir), null, http, url, null, body);
  }

  private static Subject sdk(Engine engine, IntentStore store, Path scratch, OkHttpClient http,
      String url, IntentListener listener, LongFunction<String> body) {
    IdempotentClient.Builder builder = IdempotentClient.builder()
        .okHttpClient(http)
        .store(store);
    if (listener != null) {
      builder.listener(listener);
    }
    IdempotentClient client = builder.build();
    Load.Op op = seq -> {
      IntentSpec spec = IntentSpec.builder()
          .operation("create-payment")
          .scope("bench")
          .post(url)
          .jsonBody(body.apply(seq))
          .build();
      return client.execute(spec) instanceof IntentOutcome.Completed;
    };
    return new Subject(label(engine), op, client, store, scratch);
  }

  /** Opens plain OkHttp ({@code engine} null) or the SDK over {@code engine}. */
  public static Subject open(Engine engine, OkHttpClient http, String url) {
    return engine == null ? plain(http, url) : sdk(engine, http, url);
  }

  /** The row label. */
  public String label() {
    return label;
  }

  /** Sends one intent; true when it completed. */
  public Load.Op op() {
    return op;
  }

  @Override
  public void close() {
    if (client != null) {
      try {
        client.close();
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException("closing " + label + " failed", e);
      }
    }
    if (store != null) {
      store.close();
    }
    TempDirs.delete(dir);
  }
}
