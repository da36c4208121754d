package dev.oncely.consumer;

import dev.oncely.client.IntentTag;
import dev.oncely.spring.web.IntentAttributes;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestClient;

/** The README's service on Boot's RestClient.Builder, with the provider's URL as a property. */
@Service
class Payments {
  private final RestClient provider;

  Payments(RestClient.Builder http, @Value("${payments.base-url}") String baseUrl) {
    this.provider = http.baseUrl(baseUrl).build();
  }

  String pay(String orderId, String json) {
    return provider.post().uri("/payments")
        .attributes(IntentAttributes.of(IntentTag.builder()
            .operation("create-payment").scope("shop").businessId(orderId).build()))
        .contentType(MediaType.APPLICATION_JSON)
        .body(json)
        .retrieve()
        .body(String.class);
  }
}
