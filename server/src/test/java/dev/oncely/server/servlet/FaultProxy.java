package dev.oncely.server.servlet;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.HttpUrl;

/**
 * A TCP proxy on 127.0.0.1 between a client and the server under test that breaks chosen
 * connections at the moment that matters for idempotency: after the request reached the server
 * and the server has answered, so the effect and the stored answer exist, but before the client
 * gets a byte of it. The first connections get the {@link Fault}s given, in order; every later
 * connection is forwarded untouched. Threads are daemons; {@link #close()} ends every connection.
 */
final class FaultProxy implements AutoCloseable {
  /** What happens to one connection. */
  enum Fault {
    /** Forwarded both ways untouched. */
    NONE,
    /**
     * The answer is dropped and the client's connection closed (FIN): a load balancer or a
     * server that died after committing, as the client sees an unexpected end of stream.
     */
    DISCONNECT_AFTER_REQUEST,
    /** The answer is dropped and the client's connection reset (RST): a crashed middlebox. */
    RESET_AFTER_REQUEST,
    /**
     * The answer is held and never forwarded while the connection stays open: a partition after
     * delivery; the client's attempt times out with its request delivered.
     */
    STALL_AFTER_REQUEST
  }

  private final ServerSocket listener;
  private final int targetPort;
  private final Deque<Fault> faults;
  private final List<Socket> sockets = new ArrayList<>();
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger injected = new AtomicInteger();
  private volatile boolean closed;

  /** A proxy to {@code 127.0.0.1:targetPort} whose first connections get {@code faults}. */
  FaultProxy(int targetPort, Fault... faults) throws IOException {
    this.targetPort = targetPort;
    this.faults = new ArrayDeque<>(Arrays.asList(faults));
    this.listener = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::acceptLoop, "fault-proxy-accept");
    accept.setDaemon(true);
    accept.start();
  }

  /** {@code http://127.0.0.1:<proxy port><path>}. */
  HttpUrl url(String path) {
    return HttpUrl.get("http://127.0.0.1:" + listener.getLocalPort() + path);
  }

  /** Connections accepted so far. */
  int connections() {
    return connections.get();
  }

  /** Faults carried out so far (an answer that arrived and was dropped, reset or held). */
  int faultsInjected() {
    return injected.get();
  }

  @Override
  public void close() throws IOException {
    closed = true;
    listener.close();
    synchronized (sockets) {
      for (Socket s : sockets) {
        closeQuietly(s);
      }
    }
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket();
        server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5_000);
        Fault fault;
        synchronized (faults) {
          fault = faults.isEmpty() ? Fault.NONE : faults.poll();
        }
        connections.incrementAndGet();
        synchronized (sockets) {
          sockets.add(client);
          sockets.add(server);
        }
        start("fault-proxy-up", () -> pump(client, server));
        start("fault-proxy-down", () -> answer(server, client, fault));
      } catch (IOException e) {
        if (!closed) {
          throw new IllegalStateException("the fault proxy stopped accepting", e);
        }
      }
    }
  }

  /** Forwards the server's answer, or carries out {@code fault} once it starts. */
  private void answer(Socket server, Socket client, Fault fault) {
    if (fault == Fault.NONE) {
      pump(server, client);
      return;
    }
    try {
      // The first byte of the answer: the handler has run and the answer is stored.
      if (server.getInputStream().read() == -1) {
        closeQuietly(client);
        return;
      }
      injected.incrementAndGet();
      switch (fault) {
        case DISCONNECT_AFTER_REQUEST -> {
          closeQuietly(client);
          closeQuietly(server);
        }
        case RESET_AFTER_REQUEST -> {
          client.setSoLinger(true, 0);
          closeQuietly(client);
          closeQuietly(server);
        }
        case STALL_AFTER_REQUEST -> {
          // Read and drop the rest; the client waits until its own timeout closes the socket.
          server.getInputStream().transferTo(OutputStream.nullOutputStream());
        }
        default -> throw new IllegalStateException(fault.toString());
      }
    } catch (IOException e) {
      closeQuietly(client);
      closeQuietly(server);
    }
  }

  private static void pump(Socket from, Socket to) {
    byte[] buffer = new byte[8192];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      for (int n; (n = in.read(buffer)) != -1; ) {
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // One side went away: end both below.
    }
    closeQuietly(from);
    closeQuietly(to);
  }

  private static void start(String name, Runnable work) {
    Thread t = new Thread(work, name);
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // Already closed.
    }
  }
}
