package dev.oncely.examples.shop;

import dev.oncely.server.HandlerContext;
import dev.oncely.server.ServerAnswer;
import dev.oncely.server.servlet.IdempotencyFilter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * {@code /payments}: {@code POST /payments} runs the {@link Checkout} inside the receipt the
 * {@link IdempotencyFilter} reserved for it; {@code GET /payments/{id}} reads a payment from the
 * ledger ({@code 200}, or {@code 404}). Anything else is {@code 405} or {@code 404}.
 */
final class PaymentsServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  private final transient Checkout checkout;
  private final transient PaymentLedger ledger;
  private final transient PaymentAnswers answers;

  PaymentsServlet(Checkout checkout, PaymentLedger ledger, PaymentAnswers answers) {
    this.checkout = checkout;
    this.ledger = ledger;
    this.answers = answers;
  }

  @Override
  protected void doPost(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    if (!isCollection(request)) {
      PaymentAnswers.write(answers.methodNotAllowed("GET"), response);
      return;
    }
    HandlerContext context = IdempotencyFilter.context(request);
    if (context == null || !context.isProtected()) {
      // The filter refuses keyless payments with 400 before they get here; reaching this line
      // means the shop was wired without it, which must never charge anyone.
      throw new IllegalStateException("POST /payments runs only inside the idempotency filter");
    }
    byte[] body = request.getInputStream().readAllBytes();
    PaymentAnswers.write(checkout.pay(context, body), response);
  }

  @Override
  protected void doGet(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    if (isCollection(request)) {
      PaymentAnswers.write(answers.methodNotAllowed("POST"), response);
      return;
    }
    String id = request.getPathInfo().substring(1);
    ServerAnswer answer = id.isEmpty() || id.contains("/")
        ? answers.notFound("No payment at this path.")
        : ledger.byId(id).map(answers::found)
            .orElseGet(() -> answers.notFound("No payment has this id."));
    PaymentAnswers.write(answer, response);
  }

  private static boolean isCollection(HttpServletRequest request) {
    return request.getPathInfo() == null;
  }
}
