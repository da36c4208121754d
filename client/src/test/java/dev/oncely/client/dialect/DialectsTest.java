package dev.oncely.client.dialect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DialectsTest {

  private static StoredResponse answer(int status, String body, String... headerPairs) {
    Map<String, List<String>> headers = new java.util.LinkedHashMap<>();
    for (int i = 0; i < headerPairs.length; i += 2) {
      headers.put(headerPairs[i], List.of(headerPairs[i + 1]));
    }
    return StoredResponse.of(status, headers, body.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void ietf_quotes_the_key_as_a_structured_field_string() {
    Dialect ietf = Dialects.ietf();

    assertThat(ietf.keyHeader()).isEqualTo("Idempotency-Key");
    assertThat(ietf.formatKey("abc-123")).isEqualTo("\"abc-123\"");
    assertThat(ietf.parseKey("\"abc-123\"")).isEqualTo("abc-123");
    assertThat(ietf.parseKey("abc-123")).isNull();
  }

  @Test
  void ietf_maps_409_to_in_progress_and_422_to_mismatch() {
    Dialect ietf = Dialects.ietf();

    assertThat(ietf.classify(answer(409, ""))).isEqualTo(Verdict.IN_PROGRESS);
    assertThat(ietf.classify(answer(422, ""))).isEqualTo(Verdict.PAYLOAD_MISMATCH);
    assertThat(ietf.classify(answer(201, ""))).isEqualTo(Verdict.COMPLETED);
    assertThat(ietf.classify(answer(202, ""))).isEqualTo(Verdict.ACCEPTED);
    assertThat(ietf.classify(answer(400, ""))).isEqualTo(Verdict.REJECTED);
  }

  @Test
  void standard_rules_retry_only_transient_statuses() {
    for (int status : new int[] {100, 408, 425, 429, 500, 501, 502, 503, 504, 505, 507, 520, 524,
        530, 598, 599}) {
      assertThat(Dialects.standardVerdict(status)).as("status %d", status).isEqualTo(Verdict.RETRY);
    }
    for (int status : new int[] {301, 400, 401, 403, 404, 409, 422}) {
      assertThat(Dialects.standardVerdict(status)).as("status %d", status)
          .isEqualTo(Verdict.REJECTED);
    }
  }

  @Test
  void stripe_sends_the_plain_key_and_reads_its_error_body() {
    Dialect stripe = Dialects.stripe();

    assertThat(stripe.formatKey("abc")).isEqualTo("abc");
    assertThat(stripe.classify(answer(400,
        "{\"error\":{\"type\":\"idempotency_error\",\"message\":\"Keys for idempotent requests"
            + " can only be used with the same parameters\"}}")))
        .isEqualTo(Verdict.PAYLOAD_MISMATCH);
    assertThat(stripe.classify(answer(400, "{\"error\":{\"type\":\"invalid_request_error\"}}")))
        .isEqualTo(Verdict.REJECTED);
    assertThat(stripe.classify(answer(409,
        "{\"error\":{\"code\":\"idempotency_key_in_use\"}}"))).isEqualTo(Verdict.IN_PROGRESS);
  }

  @Test
  void stripe_honours_should_retry() {
    Dialect stripe = Dialects.stripe();

    assertThat(stripe.classify(answer(400, "{}", "Stripe-Should-Retry", "true")))
        .isEqualTo(Verdict.RETRY);
    assertThat(stripe.classify(answer(503, "{}", "Stripe-Should-Retry", "false")))
        .isEqualTo(Verdict.RECONCILE);
    assertThat(stripe.classify(answer(402, "{}", "Stripe-Should-Retry", "false")))
        .isEqualTo(Verdict.REJECTED);
    assertThat(stripe.classify(answer(429, "{}", "Stripe-Should-Retry", "false")))
        .as("should-retry false never turns a transient status into a refusal")
        .isEqualTo(Verdict.RETRY);
    assertThat(stripe.keyRetention()).isEqualTo(Duration.ofHours(24));
  }

  @Test
  void stripe_surfaces_replays_and_a_replayed_server_error_needs_reconciliation() {
    Dialect stripe = Dialects.stripe();
    StoredResponse replayedOk = answer(200, "{}", "Idempotent-Replayed", "true");
    StoredResponse replayedError = answer(500, "{}", "Idempotent-Replayed", "true");

    assertThat(stripe.isReplay(replayedOk)).isTrue();
    assertThat(stripe.classify(replayedOk)).isEqualTo(Verdict.COMPLETED);
    assertThat(stripe.classify(replayedError)).isEqualTo(Verdict.RECONCILE);
    assertThat(stripe.classify(answer(500, "{}"))).isEqualTo(Verdict.RETRY);
  }

  @Test
  void paypal_uses_its_request_id_header() {
    Dialect paypal = Dialects.paypal();

    assertThat(paypal.keyHeader()).isEqualTo("PayPal-Request-Id");
    assertThat(paypal.formatKey("k")).isEqualTo("k");
    assertThat(paypal.classify(answer(201, ""))).isEqualTo(Verdict.COMPLETED);
  }

  @Test
  void custom_dialect_can_treat_417_as_mismatch() {
    Dialect custom = Dialects.custom("acme")
        .keyHeader("X-Acme-Request")
        .quoteKey(false)
        .mismatchStatus(417)
        .inProgressStatus(423)
        .replayHeader("X-Acme-Replayed")
        .keyRetention(Duration.ofDays(7))
        .build();

    assertThat(custom.keyHeader()).isEqualTo("X-Acme-Request");
    assertThat(custom.classify(answer(417, ""))).isEqualTo(Verdict.PAYLOAD_MISMATCH);
    assertThat(custom.classify(answer(423, ""))).isEqualTo(Verdict.IN_PROGRESS);
    assertThat(custom.classify(answer(502, "", "X-Acme-Replayed", "1")))
        .isEqualTo(Verdict.RECONCILE);
    assertThat(custom.keyRetention()).isEqualTo(Duration.ofDays(7));
  }

  @Test
  void custom_classifier_is_consulted_first_and_may_fall_through() {
    Dialect custom = Dialects.custom("body-aware")
        .classifier(r -> r.status() == 409 && new String(r.body(), StandardCharsets.UTF_8)
            .contains("different payload") ? Verdict.PAYLOAD_MISMATCH : null)
        .inProgressStatus(409)
        .build();

    assertThat(custom.classify(answer(409, "{\"error\":\"different payload\"}")))
        .isEqualTo(Verdict.PAYLOAD_MISMATCH);
    assertThat(custom.classify(answer(409, "{\"error\":\"busy\"}")))
        .isEqualTo(Verdict.IN_PROGRESS);
  }

  @Test
  void quoted_keys_round_trip_through_escaping() {
    Dialect quoted = Dialects.custom("q").quoteKey(true).build();

    assertThat(quoted.parseKey(quoted.formatKey("a\"b\\c"))).isEqualTo("a\"b\\c");
  }

  @Test
  void custom_builder_refuses_bad_settings() {
    assertThatThrownBy(() -> Dialects.custom(" ")).hasMessageContaining("name");
    assertThatThrownBy(() -> Dialects.custom("x").mismatchStatus(500))
        .hasMessageContaining("mismatchStatus");
    assertThatThrownBy(() -> Dialects.custom("x").inProgressStatus(409).mismatchStatus(409))
        .hasMessageContaining("409");
    assertThatThrownBy(() -> Dialects.custom("x").keyHeader("Bad Header:"))
        .hasMessageContaining("keyHeader");
    assertThatThrownBy(() -> Dialects.custom("x").keyRetention(Duration.ZERO))
        .hasMessageContaining("keyRetention");
  }
}
