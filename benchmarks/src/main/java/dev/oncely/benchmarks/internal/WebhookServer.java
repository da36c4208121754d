package dev.oncely.benchmarks.internal;

import dev.oncely.client.IntentStore;
import dev.oncely.server.inbox.Inbox;
import dev.oncely.server.servlet.WebhookServlet;
import dev.oncely.server.webhook.StandardWebhooks;
import dev.oncely.server.webhook.WebhookReceiver;
import dev.oncely.server.webhook.WebhookRefusedException;
import dev.oncely.server.webhook.WebhookRequest;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.modeler.Registry;

/**
 * A webhook endpoint as an app serves it, for the webhook scenario: an embedded Tomcat 11 on
 * loopback (HTTP/1.1, its default thread pool, keep-alive without a request limit) serving {@code
 * POST /webhooks/standard}, its deliveries verified as Standard Webhooks under one secret.
 *
 * <ul>
 *   <li><em>Receiving</em> ({@link #receiving}): the library's {@link WebhookServlet} in front of a
 *       {@link WebhookReceiver} and an {@link Inbox} built with its defaults (4 workers, 60 s
 *       lease, 1 s poll) on a given store, which {@link InboxWrites} counts; the inbox's handler
 *       and listener are an {@link InboxTally}.
 *   <li><em>Verify only</em> ({@link #verifyOnly}): the baseline, a servlet that does what the
 *       {@code WebhookServlet} does before the inbox (reads the body in 8 KiB chunks, collects
 *       the headers, verifies with the same {@link StandardWebhooks} verifier) and answers {@code
 *       200 accepted} without storing anything.
 * </ul>
 *
 * <p>It knows the threads that serve it ({@link #threadIds()}): every thread started since it was
 * created but the load's and OkHttp's: Tomcat's, the store's own, and the inbox's, which {@link
 * #inboxThreadIds()} names apart.
 */
public final class WebhookServer implements AutoCloseable {
  /** Kept, so Tomcat's start-up chatter stays at WARNING (JUL holds loggers weakly). */
  private static final Logger TOMCAT_LOG = Logger.getLogger("org.apache");
  /**
   * Kept at SEVERE: the store's threads (MapDB's applier, the pool's) start on the first request,
   * on one of Tomcat's threads, so Tomcat's stop reports them as the web application's own.
   */
  private static final Logger LOADER_LOG =
      Logger.getLogger("org.apache.catalina.loader.WebappClassLoaderBase");
  /** The source the endpoint serves. */
  public static final String SOURCE = "standard";

  static {
    TOMCAT_LOG.setLevel(Level.WARNING);
    LOADER_LOG.setLevel(Level.SEVERE);
    // No JMX names: one embedded Tomcat after another in one JVM.
    Registry.disableRegistry();
  }

  private final Set<Long> before;
  private final Path baseDir;
  private final Tomcat tomcat;
  private final InboxWrites store;
  private final InboxTally tally;
  private final Inbox inbox;
  private final int port;

  private WebhookServer(byte[] key, Supplier<IntentStore> storeOpener) {
    this.before = liveThreadIds();
    this.baseDir = TempDirs.create("tomcat");
    StandardWebhooks verifier = StandardWebhooks.builder()
        .secret(WebhookSender.secretOf(key)).build();
    HttpServlet servlet;
    if (storeOpener == null) {
      this.store = null;
      this.tally = null;
      this.inbox = null;
      servlet = new VerifyOnlyServlet(verifier);
    } else {
      this.store = new InboxWrites(storeOpener.get());
      this.tally = new InboxTally();
      this.inbox = Inbox.builder(store).handler(SOURCE, tally).listener(tally).build();
      servlet = new WebhookServlet(WebhookReceiver.builder(inbox).source(SOURCE, verifier)
          .build());
    }
    this.tomcat = new Tomcat();
    tomcat.setBaseDir(baseDir.toString());
    Connector connector = new Connector("HTTP/1.1");
    connector.setPort(0);
    connector.setProperty("address", "127.0.0.1");
    // Keep-alive without Tomcat's default limit of 100 requests, as in the server scenario: both
    // subjects then pay for connections alike.
    connector.setProperty("maxKeepAliveRequests", "-1");
    tomcat.getService().addConnector(connector);
    tomcat.setConnector(connector);
    Context context = tomcat.addContext("", baseDir.toString());
    if (context instanceof StandardContext standard) {
      standard.setClearReferencesThreadLocals(false);
      standard.setClearReferencesRmiTargets(false);
    }
    Tomcat.addServlet(context, "webhooks", servlet);
    context.addServletMappingDecoded("/webhooks/*", "webhooks");
    try {
      tomcat.start();
    } catch (LifecycleException e) {
      close();
      throw new IllegalStateException("starting Tomcat failed", e);
    }
    this.port = connector.getLocalPort();
    if (port <= 0) {
      close();
      throw new IllegalStateException("Tomcat did not bind a port");
    }
  }

  /** The baseline: verifies each delivery signed with {@code key} and stores nothing. */
  public static WebhookServer verifyOnly(byte[] key) {
    return new WebhookServer(key, null);
  }

  /**
   * The library's receiver: verifies each delivery signed with {@code key} and stores it in an
   * inbox on the store {@code store} opens (closed with this server).
   */
  public static WebhookServer receiving(byte[] key, Supplier<IntentStore> store) {
    return new WebhookServer(key, store);
  }

  /** {@code http://127.0.0.1:port/webhooks/standard}. */
  public String url() {
    return "http://127.0.0.1:" + port + "/webhooks/" + SOURCE;
  }

  /** Whether this server stores deliveries (false for the baseline). */
  public boolean stores() {
    return inbox != null;
  }

  /** The inbox's handler and listener; null for the baseline. */
  public InboxTally tally() {
    return tally;
  }

  /** The store's counted writes so far; all zero for the baseline. */
  public InboxWrites.Counts writes() {
    return store == null ? new InboxWrites.Counts(0, 0, 0, 0, 0, 0) : store.counts();
  }

  /** The live threads that serve this endpoint (see the class description). */
  public Set<Long> threadIds() {
    Set<Long> ids = new HashSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      String name = t.getName();
      if (!before.contains(t.getId()) && !name.startsWith("bench-load-")
          && !name.startsWith("OkHttp")) {
        ids.add(t.getId());
      }
    }
    return ids;
  }

  /** {@link #threadIds()} but the inbox's: Tomcat's and the store's own. */
  public Set<Long> receivingThreadIds() {
    Set<Long> ids = threadIds();
    ids.removeAll(inboxThreadIds());
    return ids;
  }

  /** The inbox's dispatcher and workers among {@link #threadIds()}. */
  public Set<Long> inboxThreadIds() {
    Set<Long> ids = new HashSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (!before.contains(t.getId()) && t.getName().startsWith(InboxWrites.INBOX_THREADS)) {
        ids.add(t.getId());
      }
    }
    return ids;
  }

  /** Stops taking requests, then the inbox (its running handlers finish), then the store. */
  @Override
  public void close() {
    try {
      tomcat.stop();
      tomcat.destroy();
    } catch (LifecycleException e) {
      throw new IllegalStateException("stopping Tomcat failed", e);
    } finally {
      try {
        if (inbox != null) {
          inbox.close();
        }
      } finally {
        if (store != null) {
          store.close();
        }
        TempDirs.delete(baseDir);
      }
    }
  }

  private static Set<Long> liveThreadIds() {
    Set<Long> ids = new HashSet<>();
    for (long id : ManagementFactory.getThreadMXBean().getAllThreadIds()) {
      ids.add(id);
    }
    return ids;
  }

  /** The baseline's servlet: the webhook servlet's work up to the signature, then {@code 200}. */
  private static final class VerifyOnlyServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final int LIMIT = WebhookReceiver.DEFAULT_MAX_BODY_BYTES;
    private final transient StandardWebhooks verifier;

    VerifyOnlyServlet(StandardWebhooks verifier) {
      this.verifier = verifier;
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response)
        throws IOException {
      String info = request.getPathInfo();
      if (!"POST".equals(request.getMethod()) || info == null || !info.equals("/" + SOURCE)) {
        write(response, 404, "post to /webhooks/" + SOURCE);
        return;
      }
      long declared = request.getContentLengthLong();
      ByteArrayOutputStream out = new ByteArrayOutputStream(declared > 0 ? (int) declared : 256);
      byte[] chunk = new byte[8192];
      try (InputStream in = request.getInputStream()) {
        for (int n; (n = in.read(chunk)) != -1; ) {
          if (out.size() + (long) n > LIMIT) {
            write(response, 413, "too large");
            return;
          }
          out.write(chunk, 0, n);
        }
      }
      Map<String, List<String>> headers = new LinkedHashMap<>();
      for (String name : Collections.list(request.getHeaderNames())) {
        headers.computeIfAbsent(name, n -> new ArrayList<>())
            .addAll(Collections.list(request.getHeaders(name)));
      }
      try {
        verifier.verify(WebhookRequest.of(headers, out.toByteArray()), Instant.now());
        write(response, 200, "accepted");
      } catch (WebhookRefusedException e) {
        write(response, e.status(), e.getMessage());
      }
    }

    private static void write(HttpServletResponse response, int status, String text)
        throws IOException {
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      response.setStatus(status);
      response.setContentType("text/plain; charset=utf-8");
      response.setContentLength(bytes.length);
      response.getOutputStream().write(bytes);
    }
  }
}
