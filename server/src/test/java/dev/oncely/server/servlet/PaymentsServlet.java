package dev.oncely.server.servlet;

import dev.oncely.server.HandlerContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * A payments API as a plain servlet behind the {@link IdempotencyFilter}: a {@code POST} reads the
 * body, commits one payment in the {@link PaymentLedger} and answers {@code 201} with JSON, a
 * {@code Location}, a {@code Set-Cookie} and a header no replay may carry ({@code X-Served-By}).
 *
 * <p>Test hooks: a request carrying {@value #FAIL_HEADER} gets that status from {@code sendError}
 * before any effect; {@link #beforeAnswer} runs after the effect, before the answer (a gate a test
 * holds closed); {@link #pendingCharges()} makes every payment's outcome unknown: the servlet calls
 * {@code context.pending(..)} and answers {@code 202}.
 */
final class PaymentsServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;
  /** A request with this header is answered with its value as status, before any effect. */
  static final String FAIL_HEADER = "X-Oncely-Test-Fail";

  /** What a test runs between the effect and the answer. */
  @FunctionalInterface
  interface Pause {
    void await() throws InterruptedException;
  }

  private final transient PaymentLedger ledger;
  private transient volatile Pause beforeAnswer = () -> { };
  private volatile boolean pending;

  PaymentsServlet(PaymentLedger ledger) {
    this.ledger = ledger;
  }

  /** Runs {@code pause} after each effect, before the answer. */
  PaymentsServlet beforeAnswer(Pause pause) {
    this.beforeAnswer = pause;
    return this;
  }

  /** Leaves every payment's outcome pending: {@code context.pending(..)} and {@code 202}. */
  PaymentsServlet pendingCharges() {
    this.pending = true;
    return this;
  }

  @Override
  protected void doPost(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    byte[] body = request.getInputStream().readAllBytes();
    String fail = request.getHeader(FAIL_HEADER);
    if (fail != null) {
      response.sendError(Integer.parseInt(fail.trim()));
      return;
    }
    HandlerContext context = IdempotencyFilter.context(request);
    PaymentLedger.Payment payment = ledger.record(context, body);
    try {
      beforeAnswer.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted before the answer", e);
    }
    response.setContentType("application/json");
    response.addHeader("Set-Cookie", "session=s-" + payment.id() + "; Path=/; HttpOnly");
    response.setHeader("X-Served-By", "tomcat");
    if (pending && context != null) {
      // No Location of its own: the core names the receipt's status URL.
      context.pending("charge:" + payment.id(), "the card network has not answered yet");
      response.setStatus(202);
      write(response, "{\"id\":\"" + payment.id() + "\",\"status\":\"processing\"}");
      return;
    }
    response.setStatus(201);
    response.setHeader("Location", "/payments/" + payment.id());
    write(response, "{\"id\":\"" + payment.id() + "\",\"status\":\"succeeded\",\"bytes\":"
        + body.length + "}");
  }

  private static void write(HttpServletResponse response, String json) throws IOException {
    response.getOutputStream().write(json.getBytes(StandardCharsets.UTF_8));
  }
}
