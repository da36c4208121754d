package dev.oncely.server.servlet;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A filter in front of everything that notes each request as it arrives ({@code METHOD path}),
 * so a test can wait until requests have reached the server instead of sleeping. Thread-safe; one
 * instance may sit in several servers.
 */
final class Arrivals implements Filter {
  private final List<String> seen = new ArrayList<>();

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest http = (HttpServletRequest) request;
    synchronized (this) {
      seen.add(http.getMethod() + " " + http.getRequestURI());
      notifyAll();
    }
    chain.doFilter(request, response);
  }

  /** How many requests arrived whose {@code METHOD path} starts with {@code prefix}. */
  synchronized int count(String prefix) {
    return (int) seen.stream().filter(s -> s.startsWith(prefix)).count();
  }

  /**
   * Waits until {@code n} requests starting with {@code prefix} arrived.
   *
   * @return whether they did within {@code timeout}
   */
  synchronized boolean await(String prefix, int n, Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (count(prefix) < n) {
      long left = end - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      wait(Math.max(1, left / 1_000_000));
    }
    return true;
  }
}
