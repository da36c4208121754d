package dev.oncely.persistence.crash;

import dev.oncely.client.IntentSpec;
import dev.oncely.client.KeyStrategy;
import java.nio.charset.StandardCharsets;

/**
 * The intents the SDK crash child drives: intent {@code n} is the payment of order {@code order-n},
 * whose body is a pure function of {@code n}. Three in four get a random key, so a restarted child
 * can only find them again through their business id; every fourth gets a key derived from the
 * business id. The key of an intent is whatever its first stored record holds.
 */
final class SdkWorkload {
  static final String SCOPE = "tenant-crash";
  static final String OPERATION = "create-payment";
  static final String PATH = "/payments";
  /** The header that carries the tenant; the server reserves (tenant, key). */
  static final String TENANT_HEADER = "X-Tenant";

  private static final byte[] KEY_SECRET =
      "oncely-crash-test-secret-0123456789".getBytes(StandardCharsets.UTF_8);

  private SdkWorkload() {}

  static String order(int n) {
    return "order-" + n;
  }

  /** The order number in a business id, or -1 if it is not one of ours. */
  static int orderNumber(String businessId) {
    if (businessId == null || !businessId.startsWith("order-")) {
      return -1;
    }
    try {
      return Integer.parseInt(businessId.substring("order-".length()));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  static String body(int n) {
    return "{\"order\":\"" + order(n) + "\",\"amount\":" + (100 + n * 7)
        + ",\"currency\":\"JPY\"}";
  }

  /** A fresh spec of intent {@code n} against {@code baseUrl} (no trailing slash). */
  static IntentSpec spec(String baseUrl, int n) {
    return IntentSpec.builder()
        .operation(OPERATION)
        .scope(SCOPE)
        .post(baseUrl + PATH)
        .jsonBody(body(n))
        .header(TENANT_HEADER, SCOPE)
        .businessId(order(n))
        .keyStrategy(keyStrategy(n))
        .build();
  }

  /** How intent {@code n}'s key is minted. */
  static KeyStrategy keyStrategy(int n) {
    return n % 4 == 3 ? KeyStrategy.derived(KEY_SECRET) : KeyStrategy.random();
  }
}
