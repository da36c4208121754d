package dev.oncely.client.internal.http;

import dev.oncely.client.internal.StoredHeaders;
import dev.oncely.client.internal.Origins;
import dev.oncely.client.internal.ParsedUrls;
import dev.oncely.client.internal.drive.Answer;
import dev.oncely.client.internal.drive.DriveOwner;
import dev.oncely.client.internal.drive.Exchange;
import dev.oncely.client.internal.drive.Wire;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoredResponse;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * The interceptor's {@link Wire}: each attempt is the app's own request sent with {@code
 * chain.proceed}, its body the buffered bytes (one-shot, every write counted in the call's
 * {@link WireWrites}) with the record's {@code Content-Encoding}, the key in the record's wire form
 * and no other key header, and a mark that
 * tells the interceptor's network half to hide redirects from OkHttp. A poll of a status URL on
 * another origin carries none of the app's headers, unless the app listed that origin in {@code
 * credentialOrigins}, as the intent API's wire does. A refusal of the credentials ({@code 401},
 * {@code 407}) of a request that carried the app's headers asks the client's authenticator for
 * fresh ones ({@link AuthenticatorRenewal}); later attempts carry its headers. It stops when the
 * call is canceled or the interceptor closed.
 */
final class ChainWire implements Wire {
  private final Interceptor.Chain chain;
  /** The app's request; its headers become the authenticator's after a renewal. */
  private Request template;
  private final RequestBody body;
  private final WireWrites writes;
  private final List<String> keyHeaders;
  private final DriveOwner owner;
  private final long maxResponseBytes;
  private final Set<String> credentialOrigins;

  /**
   * @param template the app's request, as this interceptor received it
   * @param body the buffered body (null for none), counting into {@code writes}
   * @param keyHeaders every header name that may carry a key, removed before the record's is set
   * @param credentialOrigins origins besides the intent's own whose status URLs get the app's
   *     headers
   */
  ChainWire(Interceptor.Chain chain, Request template, RequestBody body, WireWrites writes,
      List<String> keyHeaders, DriveOwner owner, long maxResponseBytes,
      Set<String> credentialOrigins) {
    this.chain = chain;
    this.template = template;
    this.body = body;
    this.writes = writes;
    this.keyHeaders = keyHeaders;
    this.owner = owner;
    this.maxResponseBytes = maxResponseBytes;
    this.credentialOrigins = credentialOrigins;
  }

  /** The app's request this wire sends from: the authenticator's headers after a renewal. */
  Request template() {
    return template;
  }

  @Override
  public String stopped() {
    if (chain.call().isCanceled()) {
      return "the call was canceled";
    }
    return owner.stopped();
  }

  @Override
  public boolean stopsUnannounced() {
    return true;
  }

  @Override
  public Sent send(IntentRecord record, Exchange exchange, long timeoutMillis) {
    Request request;
    try {
      request = requestFor(record, exchange);
    } catch (RuntimeException e) {
      return new Sent(Answer.unsent(exchange.url(), new IOException("the request could not be"
          + " built: " + e.getClass().getSimpleName() + ": " + e.getMessage(), e)), null);
    }
    int before = writes.count();
    Response response = null;
    try {
      int ms = (int) Math.min(Integer.MAX_VALUE, timeoutMillis);
      response = NetworkHalf.restore(chain.withConnectTimeout(ms, TimeUnit.MILLISECONDS)
          .withReadTimeout(ms, TimeUnit.MILLISECONDS)
          .withWriteTimeout(ms, TimeUnit.MILLISECONDS)
          .proceed(request));
      StoredResponse seen = HttpParts.read(response, maxResponseBytes);
      Answer answer = Answer.of(response, seen, request.url()).afterWrites(writes.count() - before);
      if (Answer.refusesCredentials(response.code()) && carriesAppHeaders(record, exchange)) {
        answer = answer.renewed(renew(response));
      }
      return new Sent(answer, response);
    } catch (IOException e) {
      close(response);
      return new Sent(Answer.failed(request.url(), e).afterWrites(writes.count() - before), null);
    } catch (RuntimeException e) {
      close(response);
      return new Sent(Answer.failed(request.url(), new IOException("the call failed: "
          + e.getClass().getSimpleName(), e)).afterWrites(writes.count() - before), null);
    }
  }

  private boolean carriesAppHeaders(IntentRecord record, Exchange exchange) {
    return !exchange.isPoll() || Origins.mayCarryCredentials(ParsedUrls.get(record.url()),
        exchange.url(), credentialOrigins);
  }

  /** Asks the client's authenticator after {@code refused}; later attempts carry what it gave. */
  private Answer.Renewal renew(Response refused) {
    CallMemory memory = CallMemory.of(chain.call());
    AuthenticatorRenewal.Result result = AuthenticatorRenewal.ask(
        NetworkHalf.clientOf(chain.call()), memory.challengedRoute(), refused,
        template.headers(), keyHeaders);
    if (result.headers() != null) {
      template = template.newBuilder().headers(result.headers()).build();
    }
    return result.renewal();
  }

  private static void close(Response response) {
    if (response != null) {
      response.close();
    }
  }

  /**
   * The request for {@code exchange}: the app's request with the record's key and bytes for a
   * submit (moved to a redirect target within the origin if need be); a bare GET for a poll,
   * carrying the app's headers only on the intent's own origin.
   */
  private Request requestFor(IntentRecord record, Exchange exchange) {
    Request.Builder request;
    if (!exchange.isPoll()) {
      request = template.newBuilder().url(exchange.url());
      keyHeaders.forEach(request::removeHeader);
      request.method(record.method(), body);
      request.header(record.keyHeader(), record.keyValue());
      // The stored bytes go with the stored coding, whatever this call's request declares.
      request.removeHeader(StoredHeaders.CONTENT_ENCODING);
      StoredHeaders.values(record.headers(), StoredHeaders.CONTENT_ENCODING)
          .forEach(v -> request.addHeader(StoredHeaders.CONTENT_ENCODING, v));
    } else if (Origins.mayCarryCredentials(ParsedUrls.get(record.url()), exchange.url(),
        credentialOrigins)) {
      request = template.newBuilder().url(exchange.url()).get();
      keyHeaders.forEach(request::removeHeader);
      request.removeHeader("Content-Type");
      request.removeHeader("Content-Length");
      request.removeHeader(StoredHeaders.CONTENT_ENCODING);
    } else {
      request = new Request.Builder().url(exchange.url()).get();
    }
    return request.tag(NetworkHalf.Mark.class, new NetworkHalf.Mark(exchange.url(),
        !exchange.isPoll())).build();
  }
}
