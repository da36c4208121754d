package dev.oncely.server.servlet;

import dev.oncely.server.webhook.WebhookAnswer;
import dev.oncely.server.webhook.WebhookReceiver;
import dev.oncely.server.webhook.WebhookRequest;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Serves a {@link WebhookReceiver} in any Servlet 6 container: map it to a prefix ({@code
 * /webhooks/*}) and a {@code POST} to {@code /webhooks/<source>} is verified by that source's
 * scheme, stored once in the inbox and answered {@code 200} before the handler runs. Other
 * methods get {@code 405}, a path without one source name {@code 404}.
 */
public final class WebhookServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;
  private final transient WebhookReceiver receiver;

  /** A servlet serving {@code receiver}. */
  public WebhookServlet(WebhookReceiver receiver) {
    this.receiver = Objects.requireNonNull(receiver, "receiver");
  }

  @Override
  protected void service(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    if (!"POST".equals(request.getMethod())) {
      response.setHeader("Allow", "POST");
      write(response, new WebhookAnswer(405, "webhooks are delivered with POST"));
      return;
    }
    String info = request.getPathInfo();
    String source = info == null || info.length() < 2 ? "" : info.substring(1);
    if (source.isEmpty() || source.contains("/")) {
      write(response, new WebhookAnswer(404, "post to <this path>/<source>"));
      return;
    }
    byte[] body = RequestBodies.read(request, receiver.maxBodyBytes());
    if (body == null) {
      write(response, new WebhookAnswer(413, "the body is over the receiver's limit of "
          + receiver.maxBodyBytes() + " bytes"));
      return;
    }
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (String name : Collections.list(request.getHeaderNames())) {
      headers.computeIfAbsent(name, n -> new ArrayList<>())
          .addAll(Collections.list(request.getHeaders(name)));
    }
    write(response, receiver.receive(source, WebhookRequest.of(headers, body)));
  }

  private static void write(HttpServletResponse response, WebhookAnswer answer)
      throws IOException {
    byte[] text = answer.text().getBytes(StandardCharsets.UTF_8);
    response.setStatus(answer.status());
    response.setContentType("text/plain; charset=utf-8");
    response.setContentLength(text.length);
    response.getOutputStream().write(text);
  }
}
