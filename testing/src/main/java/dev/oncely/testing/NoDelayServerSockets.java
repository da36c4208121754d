package dev.oncely.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import javax.net.ServerSocketFactory;
import org.jspecify.annotations.Nullable;

/**
 * A {@link ServerSocketFactory} whose accepted sockets have {@code TCP_NODELAY} on. MockWebServer
 * writes an answer's head and body in separate writes; with Nagle's algorithm the body waits for
 * the client's delayed ACK, about 40 ms per answer on Linux. Tests that make thousands of requests
 * set it with {@code mockWebServer.setServerSocketFactory(new NoDelayServerSockets())} before
 * {@code start()}. Thread-safe.
 */
public final class NoDelayServerSockets extends ServerSocketFactory {
  @Override
  public ServerSocket createServerSocket() throws IOException {
    return new NoDelayServerSocket();
  }

  @Override
  public ServerSocket createServerSocket(int port) throws IOException {
    ServerSocket s = new NoDelayServerSocket();
    s.bind(new java.net.InetSocketAddress(port));
    return s;
  }

  @Override
  public ServerSocket createServerSocket(int port, int backlog) throws IOException {
    ServerSocket s = new NoDelayServerSocket();
    s.bind(new java.net.InetSocketAddress(port), backlog);
    return s;
  }

  @Override
  public ServerSocket createServerSocket(int port, int backlog, @Nullable InetAddress address)
      throws IOException {
    ServerSocket s = new NoDelayServerSocket();
    s.bind(new java.net.InetSocketAddress(address, port), backlog);
    return s;
  }

  private static final class NoDelayServerSocket extends ServerSocket {
    NoDelayServerSocket() throws IOException {
      super();
    }

    @Override
    public Socket accept() throws IOException {
      Socket s = super.accept();
      s.setTcpNoDelay(true);
      return s;
    }
  }
}
