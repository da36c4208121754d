package dev.oncely.spring.boot.app;

import dev.oncely.client.IntentTag;
import dev.oncely.spring.web.IntentAttributes;
import dev.oncely.spring.web.OncelyClientHttpRequestFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;

/**
 * A real Boot application that pays through the starter: {@code POST /orders/{order}/pay} sends
 * the payment to the provider ({@code provider.url}) with a {@link RestClient} on the starter's
 * {@link OncelyClientHttpRequestFactory}, the order id as the intent's business id. Prints {@code
 * PORT n} once it serves. Run by {@code BootAppKillTest} in a child JVM.
 */
@SpringBootApplication
public class PaymentApp {
  public static void main(String[] args) {
    ConfigurableApplicationContext context = SpringApplication.run(PaymentApp.class, args);
    System.out.println("PORT " + context.getEnvironment().getProperty("local.server.port"));
  }

  @RestController
  static class Payments {
    private final RestClient provider;
    private final String providerUrl;

    Payments(OncelyClientHttpRequestFactory factory, @Value("${provider.url}") String providerUrl) {
      this.provider = RestClient.builder().requestFactory(factory).build();
      this.providerUrl = providerUrl;
    }

    @PostMapping("/orders/{order}/pay")
    ResponseEntity<String> pay(@PathVariable String order) {
      IntentTag intent = IntentTag.builder().operation("create-payment").scope("shop")
          .businessId(order).build();
      try {
        return provider.post().uri(providerUrl)
            .attributes(IntentAttributes.of(intent))
            .contentType(MediaType.APPLICATION_JSON)
            .body("{\"order\":\"" + order + "\",\"amount\":1000}")
            .retrieve()
            .toEntity(String.class);
      } catch (ResourceAccessException e) {
        // Outcome unknown (pending, or the store is resuming it): the caller asks again later.
        return ResponseEntity.status(503).body(e.getMostSpecificCause().getClass().getSimpleName());
      }
    }
  }
}
