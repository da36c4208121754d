package dev.oncely.benchmarks.internal;

import dev.oncely.client.IntentStore;
import dev.oncely.server.EndpointPolicy;
import dev.oncely.server.IdempotentEndpoints;
import dev.oncely.server.ReceiptStore;
import dev.oncely.server.servlet.EndpointRoutes;
import dev.oncely.server.servlet.IdempotencyFilter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.apache.tomcat.util.modeler.Registry;

/**
 * An endpoint as an app serves it, for the server scenario: an embedded Tomcat 11 on loopback
 * (HTTP/1.1, its default thread pool, keep-alive without a request limit) with one servlet
 * answering {@code POST /payments} {@code 201} + a small JSON payment; <em>protected</em>, the
 * same servlet behind the {@link IdempotencyFilter} with the default {@link EndpointPolicy} and its
 * receipts in a given store, each durable write of which is counted ({@link #writes()}).
 *
 * <p>It knows the threads that serve it ({@link #threadIds()}): every thread started since it was
 * created (Tomcat's, the endpoints' lease timer, the store's own threads) but the load's and
 * OkHttp's, so the harness can charge their CPU and allocation to the server.
 */
public final class EndpointServer implements AutoCloseable {
  /** Kept, so Tomcat's start-up chatter stays at WARNING (JUL holds loggers weakly). */
  private static final Logger TOMCAT_LOG = Logger.getLogger("org.apache");
  /**
   * Kept at SEVERE: the endpoints' lease thread starts on the first request, on one of Tomcat's
   * threads, so Tomcat's stop reports it as the web application's own unless it ended first.
   */
  private static final Logger LOADER_LOG =
      Logger.getLogger("org.apache.catalina.loader.WebappClassLoaderBase");
  private static final byte[] PAYMENT = ("{\"id\":\"pay_1\",\"status\":\"succeeded\","
      + "\"amount\":12900,\"currency\":\"EUR\"}").getBytes(StandardCharsets.UTF_8);
  /** Bytes of the endpoint's answer body. */
  public static final int ANSWER_BYTES = PAYMENT.length;
  /** The endpoint's operation. */
  public static final String OPERATION = "create-payment";

  static {
    TOMCAT_LOG.setLevel(Level.WARNING);
    LOADER_LOG.setLevel(Level.SEVERE);
    // No JMX names: one embedded Tomcat after another in one JVM.
    Registry.disableRegistry();
  }

  private final Set<Long> before;
  private final Path baseDir;
  private final Tomcat tomcat;
  private final CountingStore store;
  private final IdempotentEndpoints endpoints;
  private final int port;

  private EndpointServer(Supplier<IntentStore> storeOpener) {
    this.before = liveThreadIds();
    this.baseDir = TempDirs.create("tomcat");
    this.store = storeOpener == null ? null : new CountingStore(storeOpener.get());
    this.endpoints = store == null ? null
        : IdempotentEndpoints.builder(ReceiptStore.on(store)).build();
    this.tomcat = new Tomcat();
    tomcat.setBaseDir(baseDir.toString());
    Connector connector = new Connector("HTTP/1.1");
    connector.setPort(0);
    connector.setProperty("address", "127.0.0.1");
    // Keep-alive without Tomcat's default limit of 100 requests, as the minimal server of the
    // client scenarios: both subjects then pay for connections alike, which is for neither.
    connector.setProperty("maxKeepAliveRequests", "-1");
    tomcat.getService().addConnector(connector);
    tomcat.setConnector(connector);
    Context context = tomcat.addContext("", baseDir.toString());
    if (context instanceof StandardContext standard) {
      standard.setClearReferencesThreadLocals(false);
      standard.setClearReferencesRmiTargets(false);
    }
    Tomcat.addServlet(context, "payments", new PaymentServlet());
    context.addServletMappingDecoded("/payments", "payments");
    if (endpoints != null) {
      FilterDef def = new FilterDef();
      def.setFilterName("oncely");
      def.setFilter(new IdempotencyFilter(endpoints, EndpointRoutes.builder()
          .route("POST", "/payments", EndpointPolicy.builder(OPERATION).build()).build()));
      context.addFilterDef(def);
      FilterMap map = new FilterMap();
      map.setFilterName("oncely");
      map.addURLPattern("/*");
      context.addFilterMap(map);
    }
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

  /** The endpoint without the filter. */
  public static EndpointServer unprotected() {
    return new EndpointServer(null);
  }

  /** The endpoint behind the filter, its receipts in the store {@code store} opens. */
  public static EndpointServer protectedBy(Supplier<IntentStore> store) {
    return new EndpointServer(store);
  }

  /** {@code http://127.0.0.1:port/payments}. */
  public String url() {
    return "http://127.0.0.1:" + port + "/payments";
  }

  /** Durable writes (creates and compare-and-sets) made to the receipt store so far; 0 without. */
  public long writes() {
    return store == null ? 0 : store.writes();
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

  @Override
  public void close() {
    if (endpoints != null) {
      endpoints.close();
    }
    try {
      tomcat.stop();
      tomcat.destroy();
    } catch (LifecycleException e) {
      throw new IllegalStateException("stopping Tomcat failed", e);
    } finally {
      if (store != null) {
        store.close();
      }
      TempDirs.delete(baseDir);
    }
  }

  private static Set<Long> liveThreadIds() {
    Set<Long> ids = new HashSet<>();
    for (long id : ManagementFactory.getThreadMXBean().getAllThreadIds()) {
      ids.add(id);
    }
    return ids;
  }

  /** The app's handler: reads the body, answers {@code 201} with a payment. */
  private static final class PaymentServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response)
        throws IOException {
      try (InputStream in = request.getInputStream()) {
        in.transferTo(OutputStream.nullOutputStream());
      }
      response.setStatus(201);
      response.setContentType("application/json");
      response.setHeader("Location", "/payments/pay_1");
      response.setContentLength(PAYMENT.length);
      response.getOutputStream().write(PAYMENT);
    }
  }
}
