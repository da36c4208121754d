package dev.oncely.postgres;

import dev.oncely.client.IntentSpec;

/** The intents the fleet tests drive: order {@code n}, its business id and body. */
final class Workload {
  static final String SCOPE = "shop";
  static final String OPERATION = "create-payment";
  static final String PATH = "/payments";

  private Workload() {}

  static String order(int n) {
    return "order-" + n;
  }

  static IntentSpec spec(String baseUrl, int n) {
    return IntentSpec.builder()
        .operation(OPERATION)
        .scope(SCOPE)
        .post(baseUrl + PATH)
        .jsonBody("{\"order\":\"" + order(n) + "\",\"amount\":" + (100 + n * 7)
            + ",\"currency\":\"JPY\"}")
        .businessId(order(n))
        .build();
  }
}
