package dev.oncely.client.internal;

import dev.oncely.client.IntentRecord;
import okhttp3.Request;

/**
 * The request that resumes a stored record through an app's own client: its method, URL, exact
 * body bytes and non-secret headers, the key in its stored wire form, and the {@link ResumedIntent}
 * tag that tells the interceptor which record to continue.
 */
public final class ResumeRequests {
  private ResumeRequests() {}

  /** The request resuming {@code record}. */
  public static Request of(IntentRecord record) {
    Request.Builder request = new Request.Builder().url(record.url());
    record.headers().forEach((name, values) -> values.forEach(v -> request.addHeader(name, v)));
    // The interceptor sends the record's own bytes; this body only carries them through the app's
    // interceptors, so its writes are not the intent's.
    request.method(record.method(), HttpParts.body(record.method(), record.body(),
        record.mediaType(), new WireWrites()));
    if (record.keyHeader() != null) {
      request.header(record.keyHeader(), record.keyValue());
    }
    return request.tag(ResumedIntent.class, new ResumedIntent(record.id())).build();
  }
}
