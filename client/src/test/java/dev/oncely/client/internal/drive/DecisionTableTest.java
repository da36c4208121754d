package dev.oncely.client.internal.drive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentState;
import dev.oncely.client.StoredResponse;
import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.dialect.Dialects;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import okhttp3.HttpUrl;
import org.junit.jupiter.api.Test;

/**
 * Reads the decision table of docs/client.md and checks every row, every status and both values of
 * "maybe delivered before" where the row says "any", against {@link AnswerPolicy}: the documented
 * table is the code's table.
 */
class DecisionTableTest {
  private static final Path DOC = Path.of("..", "docs", "client.md");
  private static final String HEADER = "| answer | to | maybe delivered before | dialect | decision |";
  private static final HttpUrl SUBMIT = HttpUrl.get("https://api.example.test/payments");
  private static final HttpUrl STATUS = HttpUrl.get("https://api.example.test/status/p-1");
  private static final IntentId ID = IntentId.of("tenant", "create-payment", "k-table");

  private record Row(String answer, String to, String delivered, String dialect, String decision) {}

  @Test
  void every_row_of_the_documented_decision_table_is_what_the_policy_decides() throws IOException {
    List<Row> rows = rows();
    assertThat(rows).as("decision table rows in %s", DOC).hasSizeGreaterThan(25);
    int checked = 0;
    for (Row row : rows) {
      for (boolean delivered : deliveredValues(row.delivered())) {
        for (Answer answer : answers(row)) {
          Exchange exchange = row.to().startsWith("poll") ? Exchange.poll(STATUS)
              : Exchange.submit(SUBMIT);
          boolean withinRetention = !row.to().contains("past");
          Step step = new AnswerPolicy(dialect(row.dialect()), ID, SUBMIT)
              .decide(exchange, delivered, answer, withinRetention);
          String status = answer.failure() != null ? "no answer" : "" + answer.response().status();
          assertThat(name(step))
              .as("row '%s' to %s, delivered before %s, answer %s", row.answer(), row.to(),
                  delivered, status)
              .isEqualTo(expected(row.decision()));
          checked++;
        }
      }
    }
    assertThat(checked).isGreaterThan(80);
  }

  private static List<Row> rows() throws IOException {
    List<String> lines = Files.readAllLines(DOC, StandardCharsets.UTF_8);
    int start = lines.indexOf(HEADER);
    assertThat(start).as("the table header in %s", DOC).isNotNegative();
    List<Row> rows = new ArrayList<>();
    for (int i = start + 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
      String[] cells = lines.get(i).split("\\|");
      rows.add(new Row(cells[1].trim(), cells[2].trim(), cells[3].trim(), cells[4].trim(),
          cells[5].trim()));
    }
    return rows;
  }

  private static boolean[] deliveredValues(String cell) {
    switch (cell) {
      case "no":
        return new boolean[] {false};
      case "yes":
        return new boolean[] {true};
      default:
        return new boolean[] {false, true};
    }
  }

  private static Dialect dialect(String name) {
    switch (name) {
      case "stripe":
        return Dialects.stripe();
      case "paypal":
        return Dialects.paypal();
      default:
        return Dialects.ietf();
    }
  }

  private static List<Answer> answers(Row row) {
    HttpUrl answered = row.to().startsWith("poll") ? STATUS : SUBMIT;
    List<Answer> answers = new ArrayList<>();
    if (row.answer().startsWith("no answer")) {
      answers.add(Answer.failed(answered, new SocketTimeoutException("timeout")));
      return answers;
    }
    Matcher statuses = Pattern.compile("`(\\d{3})`").matcher(row.answer());
    while (statuses.find()) {
      int status = Integer.parseInt(statuses.group(1));
      Map<String, List<String>> headers = new LinkedHashMap<>();
      String body = "";
      if (row.answer().contains("with `Location`")) {
        headers.put("Location", List.of(row.answer().contains("another origin")
            ? "https://elsewhere.example.test/payments" : "/v2/elsewhere"));
      }
      if (row.answer().contains("Idempotent-Replayed")) {
        headers.put("Idempotent-Replayed", List.of("true"));
      }
      if (row.answer().contains("Stripe-Should-Retry: false")) {
        headers.put("Stripe-Should-Retry", List.of("false"));
      }
      if (row.answer().contains("idempotency_error")) {
        body = "{\"error\":{\"type\":\"idempotency_error\"}}";
      }
      StoredResponse response = StoredResponse.of(status, headers,
          body.getBytes(StandardCharsets.UTF_8));
      answers.add(new Answer(response, answered, null, 0, false, false, false, 0,
          renewal(row.answer())));
    }
    assertThat(answers).as("statuses in row '%s'", row.answer()).isNotEmpty();
    return answers;
  }

  /** What the wire got from the app's credential source, as the answer cell says. */
  private static Answer.Renewal renewal(String answer) {
    if (answer.contains("credentials renewed")) {
      return Answer.Renewal.RENEWED;
    }
    if (answer.contains("renewing them failed")) {
      return Answer.Renewal.FAILED;
    }
    if (answer.contains("renewing gave nothing new")) {
      return Answer.Renewal.UNCHANGED;
    }
    return Answer.Renewal.NOT_ASKED;
  }

  private static String name(Step step) {
    if (step instanceof Step.Finish finish) {
      return finish.state() == IntentState.KEY_CONFLICT ? "key conflict"
          : finish.state().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
    }
    if (step instanceof Step.Again again) {
      return again.next().isPoll() ? "poll" : "resend";
    }
    return "pending";
  }

  private static String expected(String decision) {
    for (String token : new String[] {"completed", "rejected", "key conflict",
        "needs reconciliation", "resend", "poll", "pending"}) {
      if (decision.startsWith(token)) {
        return token;
      }
    }
    throw new AssertionError("unknown decision '" + decision + "'");
  }
}
