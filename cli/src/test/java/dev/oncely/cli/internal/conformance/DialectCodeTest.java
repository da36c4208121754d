package dev.oncely.cli.internal.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The printed dialect code says only what the probes established. */
class DialectCodeTest {
  private static ServerProfile profile() {
    ServerProfile p = new ServerProfile();
    p.keyHeader = "Idempotency-Key";
    p.quoteKey = true;
    return p;
  }

  @Test
  void an_ietf_like_server_gets_plain_settings_and_a_retention_comment() {
    ServerProfile p = profile();
    p.replayHeader = "Idempotent-Replayed";
    p.inProgressStatus = 409;
    p.inProgressRetryAfter = true;
    p.mismatchStatus = 422;

    assertThat(DialectCode.of("api.example.com", p)).isEqualTo(String.join("\n",
        "Dialect dialect = Dialects.custom(\"api.example.com\")",
        "    .keyHeader(\"Idempotency-Key\")",
        "    .quoteKey(true)",
        "    .replayHeader(\"Idempotent-Replayed\")",
        "    .inProgressStatus(409)",
        "    .mismatchStatus(422)",
        "    .keyRetention(Duration.ofHours(24))  // not probed: take it from the server's documentation",
        "    .build();"));
  }

  @Test
  void a_mismatch_on_a_usual_in_progress_status_is_matched_by_its_body() {
    ServerProfile p = profile();
    p.mismatchStatus = 409;
    p.mismatchBodyToken = "idempotency_key_reused";

    String code = DialectCode.of("x", p);

    assertThat(code).doesNotContain(".mismatchStatus(")
        .contains("409 is also a usual in-progress answer",
            ".classifier(response -> response.status() == 409",
            "contains(\"idempotency_key_reused\")", "Verdict.PAYLOAD_MISMATCH");
  }

  @Test
  void what_was_not_established_is_a_comment_not_a_guess() {
    ServerProfile p = profile();
    p.serverErrorReplayed = true;

    String code = DialectCode.of("x", p);

    assertThat(code).doesNotContain(".replayHeader(", ".inProgressStatus(", ".mismatchStatus(")
        .contains("// no replay marker seen", "// in-progress status not observed",
            "// mismatch status not established", "// replays 5xx without a marker");
  }
}
