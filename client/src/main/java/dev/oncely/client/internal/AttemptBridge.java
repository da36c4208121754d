package dev.oncely.client.internal;

import dev.oncely.client.HeaderProvider;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.IntentListener;
import dev.oncely.client.spi.IntentRecord;
import dev.oncely.client.spi.StoredResponse;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.HttpUrl;
import okhttp3.Request;
import okhttp3.Response;

/**
 * Record to network request, and network response to bounded answer, for the intent API. The key
 * travels in the record's pinned wire form and nothing else may set that header; stored headers and
 * the {@link HeaderProvider}'s credentials go only to the intent's origin (or origins the app
 * listed); a poll is a plain GET without body or key.
 */
public final class AttemptBridge {
  private final EngineConfig c;

  /** A bridge for the client configured by {@code config}. */
  public AttemptBridge(EngineConfig config) {
    this.c = config;
  }

  /** The request of attempt {@code exchange} for {@code record}. */
  public Request request(IntentRecord record, Exchange exchange, boolean refresh)
      throws IOException {
    HttpUrl intentUrl = HttpUrl.get(record.url());
    HttpUrl target = exchange.url();
    boolean credentials = Origins.mayCarryCredentials(intentUrl, target, c.credentialOrigins());
    String keyHeader = record.keyHeader() != null ? record.keyHeader() : c.dialect().keyHeader();
    Request.Builder request = new Request.Builder().url(target);
    if (credentials) {
      record.headers().forEach((name, values) -> {
        if (!name.equalsIgnoreCase(keyHeader)) {
          values.forEach(v -> request.addHeader(name, v));
        }
      });
    }
    if (exchange.isPoll()) {
      request.get().removeHeader("Content-Type").removeHeader("Content-Length");
    } else {
      request.method(record.method(), HttpParts.body(record.method(), record.body(),
          record.mediaType()));
      request.header(keyHeader, record.keyValue() != null ? record.keyValue()
          : c.dialect().formatKey(record.id().key()));
    }
    if (credentials) {
      Map<String, String> extra;
      try {
        extra = c.headers().headersFor(record.id(), new HeaderProvider.Target(target.toString(),
            !Origins.same(intentUrl, target), refresh));
      } catch (Exception e) {
        throw new IOException("header provider failed: " + e.getClass().getSimpleName(), e);
      }
      if (extra != null) {
        extra.forEach((name, value) -> {
          if (name.equalsIgnoreCase(keyHeader)) {
            c.listener().onEvent(new IntentEvent.KeyHeaderIgnored(record.id(), "headerProvider"));
          } else {
            request.header(name, value);
          }
        });
      }
    }
    return request.build();
  }

  /** Sends {@code request} within {@code timeoutMillis}; never throws. */
  public Answer send(Request request, long timeoutMillis) {
    try {
      Call call = c.http().newCall(request);
      call.timeout().timeout(timeoutMillis, TimeUnit.MILLISECONDS);
      c.calls().add(call);
      try (Response response = call.execute()) {
        StoredResponse stored = HttpParts.read(response, c.maxResponseBytes());
        return Answer.of(response, stored, request.url());
      } finally {
        c.calls().remove(call);
      }
    } catch (IOException e) {
      return Answer.failed(request.url(), e);
    } catch (RuntimeException e) {
      return Answer.failed(request.url(), new IOException("the HTTP client failed: "
          + e.getClass().getSimpleName(), e));
    }
  }
}
