package dev.oncely.spring.boot.webhooks;

import dev.oncely.server.servlet.WebhookServlet;
import dev.oncely.server.webhook.WebhookReceiver;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServlet;
import java.io.IOException;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The {@link WebhookServlet} of the context's {@link WebhookReceiver}, looked up on the first
 * delivery. The embedded web server asks for its servlets before the context's other singletons
 * exist; deferring the lookup keeps the receiver, the inbox and its store in the context's usual
 * order instead of pulling them (and the meter registry its metrics need) forward. The server
 * takes requests only once the context has refreshed, so the receiver exists by then.
 */
final class DeferredWebhookServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  private final transient ObjectProvider<WebhookReceiver> receiver;
  private transient volatile @Nullable WebhookServlet delegate;

  DeferredWebhookServlet(ObjectProvider<WebhookReceiver> receiver) {
    this.receiver = receiver;
  }

  @Override
  public void service(ServletRequest request, ServletResponse response)
      throws ServletException, IOException {
    delegate().service(request, response);
  }

  private WebhookServlet delegate() throws ServletException {
    WebhookServlet d = delegate;
    if (d == null) {
      synchronized (this) {
        d = delegate;
        if (d == null) {
          d = new WebhookServlet(receiver.getObject());
          d.init(getServletConfig());
          delegate = d;
        }
      }
    }
    return d;
  }

  @Override
  public void destroy() {
    WebhookServlet d = delegate;
    if (d != null) {
      d.destroy();
    }
  }
}
