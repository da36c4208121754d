package dev.oncely.opentelemetry;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.event.IntentListener;
import dev.oncely.opentelemetry.internal.IntentSpans;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import okhttp3.Call;
import okhttp3.Request;
import org.jspecify.annotations.Nullable;

/**
 * OpenTelemetry tracing for Oncely: one span per drive of an intent, with each attempt as a child
 * span that follows the HTTP client semantic conventions.
 *
 * <p>Spans:
 * <ul>
 *   <li><b>{@code oncely <operation>}</b> (INTERNAL), from the first event of a drive to its end.
 *       Attributes {@code oncely.operation}, {@code oncely.resumed}, {@code oncely.outcome}
 *       ({@code completed}, {@code rejected}, {@code key_conflict}, {@code pending},
 *       {@code needs_reconciliation}) and, for a pending drive, {@code oncely.pending_reason}.
 *       Status ERROR for rejected, key-conflict and needs-reconciliation outcomes. Span events for
 *       the durable create ({@code recorded}), scheduled retries (with {@code oncely.retry.delay_ms}), {@code 202} and {@code 409}
 *       answers and retry-budget refusals.
 *   <li><b>{@code <METHOD>}</b> (CLIENT), one per attempt (or poll of a status URL):
 *       {@code http.request.method}, {@code server.address}, {@code http.response.status_code},
 *       {@code http.request.resend_count} (from the second attempt on), {@code error.type} (the
 *       status code, or the failure's class name when no answer came), {@code oncely.attempt},
 *       {@code oncely.poll}.
 * </ul>
 * No attribute ever carries a key, a scope value, a business id, a URL or a payload.
 *
 * <p><b>Parent.</b> A drive's span is a child of the context current on the driving thread, or,
 * with {@link Builder#store}, of the context the intent was born with (stored in its record by
 * {@code IntentSpec.Builder.traceContext(}{@link #currentTraceContext()}{@code )}). A resumed
 * drive (attempts already made, for example after a restart) starts its own trace with a
 * <em>link</em> to that context, so the two traces can be joined.
 *
 * <p><b>Propagation.</b> The attempt span is current on the driving thread while the attempt is
 * sent: {@link #callFactory(Call.Factory)} injects it into the request ({@code traceparent}), and
 * OpenTelemetry's own OkHttp instrumentation, given to the client as its {@code Call.Factory},
 * nests its transport span under it.
 *
 * <p>Thread-safe; create one per client and pass {@link #listener()} to its builder.
 */
public final class OncelyTracing {
  /** The instrumentation scope name of every span. */
  public static final String INSTRUMENTATION_NAME = "dev.oncely.opentelemetry";

  private final TextMapPropagator propagator;
  private final IntentSpans spans;

  private OncelyTracing(Builder b) {
    this.propagator = b.openTelemetry.getPropagators().getTextMapPropagator();
    IntentStore store = b.store;
    this.spans = new IntentSpans(b.openTelemetry.getTracer(INSTRUMENTATION_NAME),
        store == null ? id -> null : id -> spanContextOf(bornWith(store, id)));
  }

  /**
   * Starts a builder that traces with {@code openTelemetry}.
   *
   * @param openTelemetry the SDK (or {@code GlobalOpenTelemetry.get()})
   * @return a builder with no origin
   * @throws NullPointerException if {@code openTelemetry} is null
   */
  public static Builder builder(OpenTelemetry openTelemetry) {
    return new Builder(openTelemetry);
  }

  /**
   * Traces with {@code openTelemetry}; drive spans are children of the current context.
   *
   * @param openTelemetry the SDK (or {@code GlobalOpenTelemetry.get()})
   * @return the tracing
   * @throws NullPointerException if {@code openTelemetry} is null
   */
  public static OncelyTracing create(OpenTelemetry openTelemetry) {
    return builder(openTelemetry).build();
  }

  /**
   * The listener that records the spans; pass it to {@code IdempotentClient.Builder.listener}
   * (with {@link IntentListener#all} to keep other listeners).
   *
   * @return the span-recording listener
   */
  public IntentListener listener() {
    return spans;
  }

  /**
   * Wraps {@code delegate} so that every request it sends carries the propagation headers of the
   * current context (W3C {@code traceparent} with the default propagators). During an attempt the
   * current span is the attempt's span, so the server joins the trace as its child. Pass the
   * result to {@code IdempotentClient.Builder.callFactory}. Not needed when the calls already go
   * through OpenTelemetry's OkHttp instrumentation, which propagates by itself.
   *
   * @param delegate the factory that sends, usually an {@code OkHttpClient} built with
   *     {@code retryOnConnectionFailure(false)} and {@code followRedirects(false)}
   * @return the propagating factory
   * @throws NullPointerException if {@code delegate} is null
   */
  public Call.Factory callFactory(Call.Factory delegate) {
    Objects.requireNonNull(delegate, "delegate");
    return request -> {
      Request.Builder b = request.newBuilder();
      propagator.inject(Context.current(), b, (carrier, k, v) -> {
        if (carrier != null) {
          carrier.header(k, v);
        }
      });
      return delegate.newCall(b.build());
    };
  }

  /**
   * The propagation fields of the current context (W3C {@code traceparent} and
   * {@code tracestate} with the default propagators), to store with a new intent so that later
   * drives can join the trace it was born in. Empty when no span is current.
   *
   * @return a new, mutable map; empty when there is nothing to propagate
   */
  public Map<String, String> currentTraceContext() {
    Map<String, String> out = new LinkedHashMap<>();
    propagator.inject(Context.current(), out, (carrier, k, v) -> {
      if (carrier != null) {
        carrier.put(k, v);
      }
    });
    return out;
  }

  private static @Nullable Map<String, String> bornWith(IntentStore store, IntentId id) {
    try {
      return store.get(id).map(IntentRecord::traceContext).orElse(null);
    } catch (RuntimeException e) {
      // Tracing must never change a drive: without the record the span simply has no origin.
      return null;
    }
  }

  private @Nullable SpanContext spanContextOf(@Nullable Map<String, String> fields) {
    if (fields == null || fields.isEmpty()) {
      return null;
    }
    Map<String, String> copy = new HashMap<>(fields);
    Context extracted = propagator.extract(Context.root(), copy, MapGetter.INSTANCE);
    SpanContext context = Span.fromContext(extracted).getSpanContext();
    return context.isValid() ? context : null;
  }

  /** Reads propagation fields from a map. */
  private enum MapGetter implements TextMapGetter<Map<String, String>> {
    INSTANCE;

    @Override
    public Iterable<String> keys(Map<String, String> carrier) {
      return carrier.keySet();
    }

    @Override
    public @Nullable String get(@Nullable Map<String, String> carrier, String key) {
      return carrier == null ? null : carrier.get(key);
    }
  }

  /** Configures {@link OncelyTracing}. Not thread-safe; build once. */
  public static final class Builder {
    private final OpenTelemetry openTelemetry;
    private @Nullable IntentStore store;

    private Builder(OpenTelemetry openTelemetry) {
      this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
    }

    /**
     * Reads the trace context each intent was born with from its record in {@code store} (the
     * one the client writes), once per drive: a first drive becomes a child of that context even
     * when it runs on another thread, and a resumed drive links to it. Store the context with
     * {@code IntentSpec.Builder.traceContext(tracing.currentTraceContext())}.
     *
     * @param store the client's store; read only
     * @return this builder
     * @throws NullPointerException if {@code store} is null
     */
    public Builder store(IntentStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /**
     * Builds the tracing.
     *
     * @return the tracing
     */
    public OncelyTracing build() {
      return new OncelyTracing(this);
    }
  }
}
