package dev.oncely.examples.shop;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Keeps {@code POST /reset} apart from every other request and every webhook event's effect: each
 * request and each effect runs under the read lock, the reset under the write lock, so a reset
 * never clears the stores under a payment or an effect in progress and none starts while they are
 * cleared. The first filter of the shop.
 */
final class ResetGate implements Filter {
  private final ReadWriteLock lock = new ReentrantReadWriteLock();

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    if (request instanceof HttpServletRequest http && http.getRequestURI().equals("/reset")) {
      // The reset takes the write lock itself (Shop.reset): a read lock held here could not be
      // upgraded.
      chain.doFilter(request, response);
      return;
    }
    lock.readLock().lock();
    try {
      chain.doFilter(request, response);
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Runs {@code work} while no reset runs (beside any number of requests and effects). */
  <T> T shared(java.util.function.Supplier<T> work) {
    lock.readLock().lock();
    try {
      return work.get();
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Runs {@code work} while no other request runs. */
  <T> T exclusively(java.util.function.Supplier<T> work) {
    lock.writeLock().lock();
    try {
      return work.get();
    } finally {
      lock.writeLock().unlock();
    }
  }
}
