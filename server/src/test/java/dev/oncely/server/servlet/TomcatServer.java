package dev.oncely.server.servlet;

import jakarta.servlet.Filter;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;
import okhttp3.HttpUrl;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.startup.Tomcat;
import org.apache.coyote.http2.Http2Protocol;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.apache.tomcat.util.modeler.Registry;

/**
 * A real Tomcat 11 on a free port of 127.0.0.1 for the tests: the filters given, in order, in
 * front of one servlet mapped to every path (or to {@link Builder#mapping}). HTTP/1.1, and with {@link Builder#http2()} also
 * HTTP/2 over cleartext (an {@code h2c} upgrade or prior knowledge). {@link #close()} stops it and
 * deletes its base directory.
 */
final class TomcatServer implements AutoCloseable {
  /** Kept, so Tomcat's start-up chatter stays at WARNING (JUL holds loggers weakly). */
  private static final Logger TOMCAT_LOG = Logger.getLogger("org.apache");

  static {
    TOMCAT_LOG.setLevel(Level.WARNING);
    // No JMX names: several embedded Tomcats run in one test JVM.
    Registry.disableRegistry();
  }

  private final Tomcat tomcat;
  private final Path baseDir;
  private final int port;

  private TomcatServer(Tomcat tomcat, Path baseDir, int port) {
    this.tomcat = tomcat;
    this.baseDir = baseDir;
    this.port = port;
  }

  static Builder builder() {
    return new Builder();
  }

  /** The port it listens on. */
  int port() {
    return port;
  }

  /** {@code http://127.0.0.1:<port><path>}. */
  HttpUrl url(String path) {
    return HttpUrl.get("http://127.0.0.1:" + port + path);
  }

  @Override
  public void close() {
    try {
      tomcat.stop();
      tomcat.destroy();
    } catch (LifecycleException e) {
      throw new IllegalStateException("stopping Tomcat failed", e);
    } finally {
      deleteTree(baseDir);
    }
  }

  /** A servlet's work, as a lambda. */
  @FunctionalInterface
  interface Endpoint {
    void serve(HttpServletRequest request, HttpServletResponse response)
        throws IOException, ServletException;
  }

  /** Builds and starts a {@link TomcatServer}. */
  static final class Builder {
    private final List<Filter> filters = new ArrayList<>();
    private HttpServlet servlet;
    private boolean http2;
    private String contextPath = "";
    private String mapping = "/";

    /** Adds {@code filter} in front of the servlet, after the filters added before. */
    Builder filter(Filter filter) {
      filters.add(filter);
      return this;
    }

    /** The servlet behind the filters, mapped to every path. */
    Builder servlet(HttpServlet servlet) {
      this.servlet = servlet;
      return this;
    }

    /** The servlet behind the filters: {@code endpoint} serves every method and path. */
    Builder servlet(Endpoint endpoint) {
      return servlet(new HttpServlet() {
        private static final long serialVersionUID = 1L;

        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response)
            throws IOException, ServletException {
          endpoint.serve(request, response);
        }
      });
    }

    /** Maps the servlet to {@code pattern} ({@code /webhooks/*}) instead of every path. */
    Builder mapping(String pattern) {
      this.mapping = pattern;
      return this;
    }

    /** Deploys the application under {@code path} ({@code /shop}) instead of the root. */
    Builder contextPath(String path) {
      this.contextPath = path;
      return this;
    }

    /** Also speaks HTTP/2 over cleartext: {@code h2c} upgrade and prior knowledge. */
    Builder http2() {
      this.http2 = true;
      return this;
    }

    TomcatServer start() {
      Path baseDir;
      try {
        baseDir = Files.createTempDirectory("oncely-tomcat-");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      Tomcat tomcat = new Tomcat();
      tomcat.setBaseDir(baseDir.toString());
      Connector connector = new Connector("HTTP/1.1");
      connector.setPort(0);
      connector.setProperty("address", "127.0.0.1");
      if (http2) {
        connector.addUpgradeProtocol(new Http2Protocol());
      }
      tomcat.getService().addConnector(connector);
      tomcat.setConnector(connector);

      Context context = tomcat.addContext(contextPath, baseDir.toString());
      if (context instanceof StandardContext standard) {
        // Its checks for leaked thread locals need --add-opens and only warn; the tests close
        // what they start.
        standard.setClearReferencesThreadLocals(false);
        standard.setClearReferencesRmiTargets(false);
      }
      Tomcat.addServlet(context, "app", servlet == null ? new HttpServlet() {
        private static final long serialVersionUID = 1L;
      } : servlet);
      context.addServletMappingDecoded(mapping, "app");
      for (int i = 0; i < filters.size(); i++) {
        FilterDef def = new FilterDef();
        def.setFilterName("filter-" + i);
        def.setFilter(filters.get(i));
        def.setAsyncSupported("true");
        context.addFilterDef(def);
        FilterMap map = new FilterMap();
        map.setFilterName("filter-" + i);
        map.addURLPattern("/*");
        context.addFilterMap(map);
      }
      try {
        tomcat.start();
      } catch (LifecycleException e) {
        deleteTree(baseDir);
        throw new IllegalStateException("starting Tomcat failed", e);
      }
      int port = connector.getLocalPort();
      if (port <= 0) {
        TomcatServer failed = new TomcatServer(tomcat, baseDir, port);
        failed.close();
        throw new IllegalStateException("Tomcat did not bind a port");
      }
      return new TomcatServer(tomcat, baseDir, port);
    }
  }

  private static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException ignored) {
          // A temp dir left behind is harmless.
        }
      });
    } catch (IOException ignored) {
      // As above.
    }
  }
}
