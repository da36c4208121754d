package dev.oncely.client.internal.http;

import dev.oncely.client.internal.drive.Answer;
import dev.oncely.client.internal.drive.DriveOwner;
import dev.oncely.client.internal.drive.Exchange;
import dev.oncely.client.internal.drive.Wire;
import dev.oncely.client.IntentRecord;
import java.io.IOException;
import okhttp3.Call;
import okhttp3.Headers;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * The {@link Wire} of an intent the interceptor resumes (after a restart, or when a due-work
 * scheduler finds it due): each attempt is a call of its own through the app's client, tagged with
 * a {@link ResumeAttempt} that our interceptor sends; between attempts the drive waits on a timer
 * and holds no thread, as the intent API's drives do. The attempt's thread is held only while the
 * call runs. Credentials the client's authenticator gave one attempt are carried to the next, in
 * memory only. It stops when the interceptor closes (the call on the wire is canceled).
 */
final class ResumeWire implements Wire {
  private final Call.Factory client;
  private final DriveOwner owner;
  /** Whether the client is known to run our interceptor: a call that failed before it is unsent. */
  private final boolean checkedClient;
  private Headers renewed;

  ResumeWire(Call.Factory client, DriveOwner owner) {
    this.client = client;
    this.owner = owner;
    this.checkedClient = client instanceof OkHttpClient;
  }

  @Override
  public String stopped() {
    return owner.stopped();
  }

  @Override
  public Sent send(IntentRecord record, Exchange exchange, long timeoutMillis) {
    ResumeAttempt attempt = new ResumeAttempt(record, exchange, timeoutMillis, renewed);
    Request request;
    Call call;
    try {
      request = attempt.request();
      call = client.newCall(request);
    } catch (RuntimeException e) {
      return new Sent(Answer.unsent(exchange.url(), new IOException("the request could not be"
          + " built: " + e.getClass().getSimpleName() + ": " + e.getMessage(), e)), null);
    }
    IOException failure = null;
    owner.calls().add(call);
    try (Response ignored = call.execute()) {
      // Judged from what our interceptor kept; the app's interceptors saw status and headers.
    } catch (IOException e) {
      failure = e;
    } catch (RuntimeException e) {
      failure = new IOException("the call failed: " + e.getClass().getSimpleName(), e);
    } finally {
      owner.calls().remove(call);
    }
    renewed = attempt.renewedHeaders();
    Sent sent = attempt.sent();
    if (sent != null) {
      return sent;
    }
    if (failure != null && checkedClient) {
      // Our interceptor never ran, so nothing of the intent reached the network: an app
      // interceptor before ours failed, or the call was canceled first.
      return new Sent(Answer.unsent(exchange.url(), failure), null);
    }
    // A call factory we cannot see into answered without our interceptor: whatever it did with
    // the request may have reached the server.
    return new Sent(Answer.failed(exchange.url(), failure != null ? failure
        : new IOException("the app's client answered without running the interceptor"))
        .afterWrites(1), null);
  }
}
