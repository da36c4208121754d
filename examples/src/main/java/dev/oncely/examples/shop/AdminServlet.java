package dev.oncely.examples.shop;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * The shop's own paths: {@code GET /stats} ({@link ShopStats}), {@code POST /reset} ({@link
 * Shop#reset()}), and a {@code 404} for every path nothing else serves.
 */
final class AdminServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  private final transient Shop shop;
  private final transient PaymentAnswers answers;

  AdminServlet(Shop shop, PaymentAnswers answers) {
    this.shop = shop;
    this.answers = answers;
  }

  @Override
  protected void service(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    String path = request.getServletPath() + (request.getPathInfo() == null ? ""
        : request.getPathInfo());
    String method = request.getMethod();
    if (path.equals("/stats")) {
      PaymentAnswers.write(method.equals("GET")
          ? PaymentAnswers.json(200, shop.stats().toJson()) : answers.methodNotAllowed("GET"),
          response);
    } else if (path.equals("/reset")) {
      PaymentAnswers.write(method.equals("POST") ? shop.reset()
          : answers.methodNotAllowed("POST"), response);
    } else {
      PaymentAnswers.write(answers.notFound("No resource at this path."), response);
    }
  }
}
