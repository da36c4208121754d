package dev.oncely.client.internal.http;

import dev.oncely.client.internal.drive.Answer;
import dev.oncely.client.internal.drive.Exchange;
import dev.oncely.client.internal.drive.Wire;
import dev.oncely.client.IntentIOException;
import dev.oncely.client.IntentRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import okhttp3.Headers;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * One attempt of a resumed drive, sent as its own call through the app's client ({@link
 * ResumeWire}): the tag that tells the interceptor to put this attempt on the wire as the drive
 * asks, and nothing more. The app's interceptors before ours run on it as on any call (they add
 * credentials, tracing, signatures); ours sends the record's key and exact bytes through a {@link
 * ChainWire} (every write counted, redirects hidden, a foreign status URL polled without the app's
 * headers, a {@code 401}/{@code 407} asking the client's authenticator) and keeps what came back
 * here for the drive to judge. The call itself answers the app's interceptors with the status and
 * headers only. Thread-safe: written by the call's thread, read by the drive after the call.
 */
public final class ResumeAttempt {
  private static final ResponseBody EMPTY = ResponseBody.create(new byte[0], (MediaType) null);

  private final IntentRecord record;
  private final Exchange exchange;
  private final long timeoutMillis;
  private final Headers renewed;
  private Wire.Sent sent;
  private int writes;
  private Headers renewedAfter;

  /**
   * @param renewed the headers the client's authenticator gave an earlier attempt of the drive,
   *     or null: the app's request as its interceptors make it
   */
  ResumeAttempt(IntentRecord record, Exchange exchange, long timeoutMillis, Headers renewed) {
    this.record = record;
    this.exchange = exchange;
    this.timeoutMillis = timeoutMillis;
    this.renewed = renewed;
    this.renewedAfter = renewed;
  }

  /**
   * Sends this attempt on {@code chain} as the interceptor {@code config} describes; called by the
   * interceptor for a request carrying this tag, once per run of the chain.
   *
   * @throws IOException the attempt's failure, as the app's interceptors would see it
   */
  public Response proceed(Interceptor.Chain chain, InterceptedCall.Config config)
      throws IOException {
    Request arrived = chain.request();
    try {
      NetworkHalf.checkInstalled(chain, config.networkHalf(), HttpParts.bodyless(record.method(),
          record.body().length, record.mediaType()));
    } catch (IllegalStateException e) {
      throw new IntentIOException(e);
    }
    Request template = renewed == null ? arrived : arrived.newBuilder().headers(renewed).build();
    CallMemory memory = CallMemory.of(chain.call());
    List<String> keyHeaders = new ArrayList<>(AppKeys.KNOWN_KEY_HEADERS);
    keyHeaders.add(config.drive().dialect().keyHeader());
    if (record.keyHeader() != null) {
      keyHeaders.add(record.keyHeader());
    }
    ChainWire wire = new ChainWire(chain, template, HttpParts.body(record.method(), record.body(),
        record.mediaType(), memory.writes()), memory.writes(), keyHeaders, config.owner(),
        config.drive().maxResponseBytes(), config.drive().credentialOrigins());
    Wire.Sent result = wire.send(record, exchange, timeoutMillis);
    Answer answer = result.answer();
    Response live = result.live();
    // The drive judges the answer it kept (read already, within the response limit); the app's
    // interceptors see its status and headers.
    Response shown = live == null ? null : live.newBuilder().body(EMPTY).build();
    result.discard();
    synchronized (this) {
      sent = new Wire.Sent(answer, null);
      writes += answer.writes();
      if (wire.template() != template) {
        renewedAfter = wire.template().headers();
      }
    }
    if (answer.failure() != null || shown == null) {
      throw answer.failure() != null ? answer.failure() : new IOException("no answer");
    }
    return shown;
  }

  /**
   * What the drive learns after the call: the last answer our interceptor got, counting every
   * write of every run of the chain, or null if the call never reached our interceptor.
   */
  synchronized Wire.Sent sent() {
    if (sent == null) {
      return null;
    }
    Wire.Sent last = sent;
    sent = null;
    return new Wire.Sent(last.answer().afterWrites(Math.max(writes, last.answer().writes())),
        null);
  }

  /** The headers later attempts of the drive start from: the authenticator's, or null. */
  synchronized Headers renewedHeaders() {
    return renewedAfter;
  }

  /** The request that carries this attempt through the app's client. */
  Request request() {
    Request.Builder request = new Request.Builder().url(exchange.url());
    record.headers().forEach((name, values) -> values.forEach(v -> request.addHeader(name, v)));
    if (exchange.isPoll()) {
      request.get();
    } else {
      // Our interceptor sends the record's own bytes, counted; this body only carries them
      // through the app's interceptors before ours (a signing interceptor may read it).
      request.method(record.method(), HttpParts.body(record.method(), record.body(),
          record.mediaType(), new WireWrites()));
    }
    if (record.keyHeader() != null) {
      request.header(record.keyHeader(), record.keyValue());
    }
    return request.tag(ResumeAttempt.class, this).build();
  }
}
