package dev.oncely.client.internal.http;

import dev.oncely.client.internal.StoredHeaders;
import dev.oncely.client.internal.Origins;
import dev.oncely.client.internal.ParsedUrls;
import dev.oncely.client.internal.drive.Answer;
import dev.oncely.client.internal.drive.Exchange;
import dev.oncely.client.internal.drive.Wire;
import dev.oncely.client.HeaderProvider;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoredResponse;
import dev.oncely.client.event.IntentEvent;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.HttpUrl;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * The intent API's {@link Wire}: record to network request, sent through the client's own {@code
 * Call.Factory}, and network response to bounded answer. The key travels in the record's pinned
 * wire form and nothing else may set that header; stored headers and the {@link HeaderProvider}'s
 * credentials go only to the intent's origin (or origins the app listed); a poll is a plain GET
 * without body or key. After an answer refuses the credentials ({@code 401}, {@code 407}), the
 * provider is asked at once for fresh ones ({@code refresh = true}); the next attempt carries what
 * it gave. A header value the HTTP client refuses is a failure of an unsent attempt, never an
 * exception.
 */
public final class AttemptBridge implements Wire {
  private final EngineConfig c;
  private final WireWrites writes = new WireWrites();
  /** Parsed once per drive: a record's URL and body never change while it is driven. */
  private HttpUrl intentUrl;
  private RequestBody body;
  /** The provider's headers for the attempt just sent (null: none asked). */
  private Map<String, String> provided;
  /** Fresh headers the provider gave after a refusal, for the next attempt (null: ask it then). */
  private Map<String, String> renewed;
  /** Whether asking for fresh headers failed, so the next attempt asks again with refresh. */
  private boolean renewalOwed;

  /** A bridge for one drive of the client configured by {@code config}. */
  public AttemptBridge(EngineConfig config) {
    this.c = config;
  }

  @Override
  public String stopped() {
    return c.owner().stopped();
  }

  @Override
  public Sent send(IntentRecord record, Exchange exchange, long timeoutMillis) {
    Request request;
    try {
      request = request(record, exchange);
    } catch (IOException e) {
      return new Sent(Answer.unsent(exchange.url(), e), null);
    } catch (RuntimeException e) {
      // A stored or provided header the HTTP client refuses (a line break in a token): nothing
      // was sent, and the next attempt may get a usable value from the provider.
      return new Sent(Answer.unsent(exchange.url(), new IOException("the request could not be"
          + " built: " + e.getClass().getSimpleName() + ": " + e.getMessage(), e)), null);
    }
    int before = writes.count();
    Answer answer = send(request, timeoutMillis).afterWrites(writes.count() - before);
    if (answer.response() != null && Answer.refusesCredentials(answer.response().status())
        && provided != null) {
      answer = answer.renewed(renew(record, exchange));
    }
    return new Sent(answer, null);
  }

  /**
   * Asks the provider for fresh headers after a refusal of those it gave for the attempt just
   * sent, and keeps them for the next attempt.
   */
  private Answer.Renewal renew(IntentRecord record, Exchange exchange) {
    Map<String, String> fresh;
    try {
      fresh = c.headers().headersFor(record.id(), target(exchange, true));
    } catch (Exception e) {
      renewalOwed = true;
      return Answer.Renewal.FAILED;
    }
    renewalOwed = false;
    if (fresh == null || fresh.isEmpty() || fresh.equals(provided)) {
      return Answer.Renewal.UNCHANGED;
    }
    renewed = fresh;
    return Answer.Renewal.RENEWED;
  }

  private HeaderProvider.Target target(Exchange exchange, boolean refresh) {
    HttpUrl target = exchange.url();
    return new HeaderProvider.Target(target.toString(), !Origins.same(intentUrl, target), refresh);
  }

  private Request request(IntentRecord record, Exchange exchange) throws IOException {
    if (intentUrl == null) {
      intentUrl = ParsedUrls.get(record.url());
      body = HttpParts.body(record.method(), record.body(), record.mediaType(), writes);
    }
    HttpUrl target = exchange.url();
    boolean credentials = Origins.mayCarryCredentials(intentUrl, target, c.drive().credentialOrigins());
    String keyHeader = record.keyHeader() != null ? record.keyHeader() : c.drive().dialect().keyHeader();
    Request.Builder request = new Request.Builder().url(target);
    if (credentials) {
      record.headers().forEach((name, values) -> {
        if (!name.equalsIgnoreCase(keyHeader)) {
          values.forEach(v -> request.addHeader(name, v));
        }
      });
    }
    if (exchange.isPoll()) {
      request.get().removeHeader("Content-Type").removeHeader("Content-Length")
          .removeHeader(StoredHeaders.CONTENT_ENCODING);
    } else {
      request.method(record.method(), body);
      request.header(keyHeader, record.keyValue() != null ? record.keyValue()
          : c.drive().dialect().formatKey(record.id().key()));
    }
    provided = null;
    if (credentials) {
      Map<String, String> extra = renewed;
      renewed = null;
      if (extra == null) {
        try {
          extra = c.headers().headersFor(record.id(), target(exchange, renewalOwed));
          renewalOwed = false;
        } catch (Exception e) {
          throw new IOException("header provider failed: " + e.getClass().getSimpleName(), e);
        }
      }
      provided = extra != null ? extra : Map.of();
      if (extra != null) {
        extra.forEach((name, value) -> {
          if (name.equalsIgnoreCase(keyHeader)) {
            c.drive().listener().onEvent(new IntentEvent.KeyHeaderIgnored(record.id(), "headerProvider"));
          } else {
            request.header(name, value);
          }
        });
      }
    }
    return request.build();
  }

  private Answer send(Request request, long timeoutMillis) {
    Call call;
    try {
      call = c.http().newCall(request);
      call.timeout().timeout(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      return Answer.unsent(request.url(), new IOException("the HTTP client refused the request: "
          + e.getClass().getSimpleName(), e));
    }
    c.owner().calls().add(call);
    try (Response response = call.execute()) {
      StoredResponse stored = HttpParts.read(response, c.drive().maxResponseBytes());
      return Answer.of(response, stored, request.url());
    } catch (IOException e) {
      return Answer.failed(request.url(), e);
    } catch (RuntimeException e) {
      return Answer.failed(request.url(), new IOException("the HTTP client failed: "
          + e.getClass().getSimpleName(), e));
    } finally {
      c.owner().calls().remove(call);
    }
  }
}
