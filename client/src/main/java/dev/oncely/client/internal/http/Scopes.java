package dev.oncely.client.internal.http;

import dev.oncely.client.internal.Digests;
import dev.oncely.client.internal.Origins;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import okhttp3.Request;

/**
 * The interceptor's default scope of an untagged request: its origin, and who is calling. Two
 * accounts that send the same app-set key to one origin (keys derived from an event id, as the
 * contract allows) must never share a record or a stored response, so the credentials the request
 * carries ({@code Authorization}, {@code Proxy-Authorization}) are part of the scope, as a short
 * one-way digest: never the credential itself. A token refresh of the same account then starts a
 * second record, but under the same key on the wire, which the server answers as the same intent;
 * tag the request ({@code IntentTag}) with an account id as scope to keep one record across
 * refreshes.
 */
public final class Scopes {
  private static final String[] CREDENTIALS = {"Authorization", "Proxy-Authorization"};

  private Scopes() {}

  /** The default scope of {@code request}: {@code origin}, or {@code origin#digest}. */
  public static String ofRequest(Request request) {
    String origin = Origins.of(request.url());
    MessageDigest sha = null;
    for (String name : CREDENTIALS) {
      for (String value : request.headers(name)) {
        if (sha == null) {
          sha = Digests.sha256();
          sha.update("oncely-scope".getBytes(StandardCharsets.UTF_8));
        }
        sha.update((byte) 0);
        sha.update(name.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        sha.update(value.getBytes(StandardCharsets.UTF_8));
      }
    }
    if (sha == null) {
      return origin;
    }
    StringBuilder scope = new StringBuilder(origin).append('#');
    byte[] digest = sha.digest();
    for (int i = 0; i < 8; i++) {
      scope.append(Character.forDigit((digest[i] >> 4) & 0xf, 16))
          .append(Character.forDigit(digest[i] & 0xf, 16));
    }
    return scope.toString();
  }
}
