package dev.oncely.client.internal.drive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentId;
import dev.oncely.client.StoredResponse;
import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.internal.pacing.BudgetRules;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.Map;
import okhttp3.HttpUrl;
import org.junit.jupiter.api.Test;

/**
 * The answers that ask for another attempt, through {@link AnswerPolicy} and {@link BudgetRules}
 * together: a resend the client chooses after a failure costs retry budget; one the server asked
 * for, a redirect within the origin, a lost status URL and renewed credentials are free, as the
 * decision table in docs/client.md says.
 */
class WhatAResendCostsTest {
  private static final HttpUrl SUBMIT = HttpUrl.get("https://api.example.test/payments");
  private static final HttpUrl STATUS = HttpUrl.get("https://api.example.test/status/p-1");
  private static final IntentId ID = IntentId.of("tenant", "create-payment", "k-costs");

  private static Answer answer(HttpUrl url, int status, Map<String, List<String>> headers,
      Answer.Renewal renewal) {
    return new Answer(StoredResponse.of(status, headers, new byte[0]), url, null, 0, false, false,
        false, 0, renewal);
  }

  private static Answer answer(HttpUrl url, int status) {
    return answer(url, status, Map.of(), Answer.Renewal.NOT_ASKED);
  }

  /** Whether the resend {@code answer} to {@code exchange} asks for costs budget. */
  private static boolean costs(Exchange exchange, Answer answer) {
    Step step = new AnswerPolicy(Dialects.ietf(), ID, SUBMIT).decide(exchange, false, answer, true);
    assertThat(step).as("a resend").isInstanceOf(Step.Again.class);
    return BudgetRules.costs(((Step.Again) step).resend(), answer.response());
  }

  @Test
  void a_resend_after_no_answer_or_a_transient_answer_costs() {
    Exchange submit = Exchange.submit(SUBMIT);
    assertThat(costs(submit, Answer.failed(SUBMIT, new SocketTimeoutException("timeout"))))
        .isTrue();
    for (int status : new int[] {408, 425, 429, 500, 503, 524}) {
      assertThat(costs(submit, answer(SUBMIT, status))).as("%s", status).isTrue();
    }
    assertThat(costs(submit, answer(SUBMIT, 401, Map.of(), Answer.Renewal.FAILED)))
        .as("renewing the credentials failed").isTrue();
    assertThat(costs(Exchange.poll(STATUS), answer(STATUS, 500))).as("a poll answered 500")
        .isTrue();
  }

  @Test
  void a_resend_at_the_time_the_server_named_is_free() {
    assertThat(costs(Exchange.submit(SUBMIT),
        answer(SUBMIT, 503, Map.of("Retry-After", List.of("1")), Answer.Renewal.NOT_ASKED)))
        .isFalse();
  }

  @Test
  void a_resend_the_server_asked_for_or_that_changed_nothing_on_it_is_free() {
    Exchange submit = Exchange.submit(SUBMIT);
    assertThat(costs(submit, answer(SUBMIT, 409))).as("in progress").isFalse();
    assertThat(costs(submit, answer(SUBMIT, 202))).as("accepted without a status URL").isFalse();
    assertThat(costs(submit, answer(SUBMIT, 202, Map.of("Location", List.of("/status/p-1")),
        Answer.Renewal.NOT_ASKED))).as("accepted, polling").isFalse();
    assertThat(costs(submit, answer(SUBMIT, 307, Map.of("Location", List.of("/v2/payments")),
        Answer.Renewal.NOT_ASKED))).as("redirected within the origin").isFalse();
    assertThat(costs(submit, answer(SUBMIT, 401, Map.of(), Answer.Renewal.RENEWED)))
        .as("credentials renewed").isFalse();
    Exchange poll = Exchange.poll(STATUS);
    assertThat(costs(poll, answer(STATUS, 202))).as("still processing").isFalse();
    assertThat(costs(poll, answer(STATUS, 404))).as("status URL gone").isFalse();
  }
}
