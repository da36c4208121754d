package dev.oncely.opentelemetry.internal;

import dev.oncely.client.IntentId;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.IntentListener;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Turns the event stream into spans: one INTERNAL span per drive of an intent, one CLIENT span
 * per attempt under it (HTTP semantic conventions). Attributes never carry a key, scope value,
 * business id, URL or payload.
 *
 * <p>The attempt span is made current on the driving thread from {@code AttemptStarted} to
 * {@code AttemptEnded}, the two events that bracket the send, so the {@code Call.Factory} (a
 * propagating wrapper, or OpenTelemetry's OkHttp instrumentation) sees it as the parent.
 */
public final class IntentSpans implements IntentListener {
  /** How many intents may have an open span at once before the oldest are ended unfinished. */
  public static final int MAX_OPEN = 10_000;

  static final AttributeKey<String> OPERATION = AttributeKey.stringKey("oncely.operation");
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("oncely.outcome");
  static final AttributeKey<String> PENDING_REASON = AttributeKey.stringKey("oncely.pending_reason");
  static final AttributeKey<Boolean> RESUMED = AttributeKey.booleanKey("oncely.resumed");
  static final AttributeKey<Boolean> POLL = AttributeKey.booleanKey("oncely.poll");
  static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("oncely.attempt");
  static final AttributeKey<Long> DELAY_MS = AttributeKey.longKey("oncely.retry.delay_ms");
  static final AttributeKey<String> METHOD = AttributeKey.stringKey("http.request.method");
  static final AttributeKey<String> SERVER_ADDRESS = AttributeKey.stringKey("server.address");
  static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");
  static final AttributeKey<Long> RESEND_COUNT = AttributeKey.longKey("http.request.resend_count");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

  private final Tracer tracer;
  private final Function<IntentId, @Nullable SpanContext> origin;
  private final Map<IntentId, Drive> open = new ConcurrentHashMap<>();

  /**
   * Records spans with {@code tracer}.
   *
   * @param tracer the tracer
   * @param origin the span context stored with an intent when it was born, if any: a first drive
   *     becomes its child, a resumed drive links to it
   */
  public IntentSpans(Tracer tracer, Function<IntentId, @Nullable SpanContext> origin) {
    this.tracer = tracer;
    this.origin = origin;
  }

  @Override
  public void onEvent(IntentEvent event) {
    if (event instanceof IntentEvent.AttemptStarted e) {
      Drive d = drive(e.id(), e.attempt() > 1);
      endAttempt(d);
      SpanBuilder b = tracer.spanBuilder(e.method())
          .setParent(Context.root().with(d.span))
          .setSpanKind(SpanKind.CLIENT)
          .setAttribute(METHOD, e.method())
          .setAttribute(SERVER_ADDRESS, e.host())
          .setAttribute(ATTEMPT, (long) e.attempt())
          .setAttribute(POLL, e.poll());
      if (e.attempt() > 1) {
        b.setAttribute(RESEND_COUNT, (long) e.attempt() - 1);
      }
      Span attempt = b.startSpan();
      d.attempt = attempt;
      d.scope = Context.current().with(attempt).makeCurrent();
      d.scopeThread = Thread.currentThread();
    } else if (event instanceof IntentEvent.AttemptEnded e) {
      Drive d = open.get(e.id());
      Span attempt = d == null ? null : d.attempt;
      if (attempt == null) {
        return;
      }
      if (e.status() >= 0) {
        attempt.setAttribute(STATUS, (long) e.status());
        if (e.status() >= 400) {
          attempt.setAttribute(ERROR_TYPE, Integer.toString(e.status()));
          attempt.setStatus(StatusCode.ERROR);
        }
      } else {
        attempt.setAttribute(ERROR_TYPE, e.failure() == null ? "_OTHER" : e.failure());
        attempt.setStatus(StatusCode.ERROR);
      }
      endAttempt(d);
    } else if (event instanceof IntentEvent.RetryScheduled e) {
      drive(e.id(), true).span.addEvent("retry scheduled", Attributes.of(
          ATTEMPT, (long) e.nextAttempt(), DELAY_MS, e.delay().toMillis()));
    } else if (event instanceof IntentEvent.Accepted e) {
      drive(e.id(), false).span.addEvent("accepted", Attributes.of(
          AttributeKey.booleanKey("oncely.poll_url"), e.pollUrl()));
    } else if (event instanceof IntentEvent.InProgress e) {
      drive(e.id(), false).span.addEvent("in progress at server",
          Attributes.of(STATUS, (long) e.status()));
    } else if (event instanceof IntentEvent.BudgetExhausted e) {
      drive(e.id(), false).span.addEvent("retry budget exhausted");
    } else if (event instanceof IntentEvent.Recorded e) {
      drive(e.id(), false).span.addEvent("recorded");
    } else if (event instanceof IntentEvent.MalformedRetryAfter e) {
      drive(e.id(), false).span.addEvent("malformed Retry-After ignored");
    } else if (event instanceof IntentEvent.Completed e) {
      end(e.id(), "completed", null, null);
    } else if (event instanceof IntentEvent.Rejected e) {
      end(e.id(), "rejected", "rejected with " + e.status(), null);
    } else if (event instanceof IntentEvent.PayloadMismatch e) {
      end(e.id(), "key_conflict", "the server saw this key with another payload", null);
    } else if (event instanceof IntentEvent.NeedsReconciliation e) {
      end(e.id(), "needs_reconciliation", "needs reconciliation", null);
    } else if (event instanceof IntentEvent.GaveUpUnknown e) {
      end(e.id(), "pending", null, e.reason().name().toLowerCase(Locale.ROOT));
    }
  }

  private Drive drive(IntentId id, boolean resumedIfNew) {
    Drive d = open.get(id);
    if (d != null) {
      return d;
    }
    if (open.size() >= MAX_OPEN) {
      // Drives that stopped without a final event (a store failure) must not pile up forever.
      open.keySet().forEach(k -> end(k, "unknown", null, null));
    }
    return open.computeIfAbsent(id, k -> start(k, resumedIfNew));
  }

  private Drive start(IntentId id, boolean resumed) {
    SpanContext born = origin.apply(id);
    SpanBuilder b = tracer.spanBuilder("oncely " + id.operation())
        .setSpanKind(SpanKind.INTERNAL)
        .setAttribute(OPERATION, id.operation())
        .setAttribute(RESUMED, resumed);
    if (born != null && born.isValid()) {
      if (resumed) {
        // A later drive (after a restart): its own trace, linked to the one the intent was born in.
        b.setNoParent().addLink(born);
      } else {
        b.setParent(Context.root().with(Span.wrap(born)));
      }
    }
    return new Drive(b.startSpan());
  }

  private void end(IntentId id, String outcome, @Nullable String error, @Nullable String reason) {
    Drive d = open.remove(id);
    if (d == null) {
      return;
    }
    endAttempt(d);
    d.span.setAttribute(OUTCOME, outcome);
    if (reason != null) {
      d.span.setAttribute(PENDING_REASON, reason);
    }
    if (error != null) {
      d.span.setStatus(StatusCode.ERROR, error);
    }
    d.span.end();
  }

  private static void endAttempt(Drive d) {
    Scope scope = d.scope;
    // A scope belongs to the thread that opened it; another thread must not restore its context.
    if (scope != null && d.scopeThread == Thread.currentThread()) {
      scope.close();
    }
    d.scope = null;
    d.scopeThread = null;
    Span attempt = d.attempt;
    if (attempt != null) {
      attempt.end();
      d.attempt = null;
    }
  }

  /** The open spans of one drive. */
  private static final class Drive {
    final Span span;
    volatile @Nullable Span attempt;
    volatile @Nullable Scope scope;
    volatile @Nullable Thread scopeThread;

    Drive(Span span) {
      this.span = span;
    }
  }
}
