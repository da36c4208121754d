package dev.oncely.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentTag;
import dev.oncely.spring.web.IntentAttributes;
import dev.oncely.testing.Fault;
import dev.oncely.testing.FaultScript;
import dev.oncely.testing.IdempotentServer;
import dev.oncely.testing.MismatchAnswer;
import java.nio.file.Path;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestClient;

/**
 * The README's "Spring Boot" section, kept compiling and working: its properties (the store path
 * in a temp directory) and its {@code Payments} service on Boot's {@code RestClient.Builder} in a
 * Boot context, against the testing
 * kit's server (Stripe dialect) instead of {@code https://api.example.com}, which drops the first
 * answer after committing.
 */
class ReadmeSpringBootTest {
  @TempDir
  Path dir;

  /** As in the README, but with the base URL as a parameter. */
  @Service
  static class Payments {
    private final RestClient provider;

    Payments(RestClient.Builder http) {
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

  private static String baseUrl;

  @Test
  void the_readme_service_pays_once_through_a_dropped_answer_and_answers_a_repeat_from_the_store()
      throws Exception {
    IdempotentServer kit = IdempotentServer.builder().mismatch(MismatchAnswer.stripe())
        .intentOf(IdempotentServer.jsonField("order"))
        .faults(FaultScript.builder().onRequest(1, Fault.dropAfterCommit()).build()).build();
    try (MockWebServer server = new MockWebServer()) {
      server.setDispatcher(kit);
      server.start();
      baseUrl = server.url("/").toString();
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(OncelyAutoConfiguration.class,
              OncelyRestClientAutoConfiguration.class, RestClientAutoConfiguration.class))
          .withUserConfiguration(Payments.class)
          .withPropertyValues("oncely.store.path=" + dir.resolve("intents.db"),
              "oncely.dialect=stripe", "oncely.retry.deadline=30s")
          .run(context -> {
            Payments payments = context.getBean(Payments.class);
            String json = "{\"order\":\"o-7\",\"amount\":1000}";

            String first = payments.pay("o-7", json);
            String again = payments.pay("o-7", json);

            assertThat(first).contains("\"status\":\"succeeded\"").isEqualTo(again);
          });
    }
    assertThat(kit.ledger().countOf("o-7")).isEqualTo(1);
    assertThat(kit.requests().size()).isEqualTo(2);
    assertThat(kit.requests().all()).allSatisfy(r ->
        assertThat(r.header("Idempotency-Key")).doesNotStartWith("\""));
  }
}
