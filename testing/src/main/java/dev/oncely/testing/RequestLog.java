package dev.oncely.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Every request an {@link IdempotentServer} received, in arrival order, headers and body
 * included, whatever fault it then got. Use it to assert what reached the server, e.g. that no
 * {@code Authorization} header reached a foreign origin. Thread-safe; queries return snapshots.
 */
public final class RequestLog {
  // Not copy-on-write: a load test appends hundreds of thousands of requests.
  private final List<ReceivedRequest> log = new ArrayList<>();

  void add(ReceivedRequest request) {
    synchronized (log) {
      log.add(request);
    }
  }

  void clear() {
    synchronized (log) {
      log.clear();
    }
  }

  /** All requests, oldest first. */
  public List<ReceivedRequest> all() {
    synchronized (log) {
      return List.copyOf(log);
    }
  }

  /** How many requests arrived. */
  public int size() {
    synchronized (log) {
      return log.size();
    }
  }

  /**
   * The requests that reached {@code origin} ({@code scheme://host:port}).
   *
   * @throws NullPointerException if {@code origin} is null
   */
  public List<ReceivedRequest> to(String origin) {
    Objects.requireNonNull(origin, "origin");
    return all().stream().filter(r -> r.origin().equals(origin)).collect(Collectors.toList());
  }

  /**
   * The requests that carried header {@code name} (case-insensitive).
   *
   * @throws NullPointerException if {@code name} is null
   */
  public List<ReceivedRequest> carrying(String name) {
    Objects.requireNonNull(name, "name");
    return all().stream().filter(r -> r.has(name)).collect(Collectors.toList());
  }

  /**
   * The requests that carried header {@code name} to an origin other than {@code ownOrigin}: each
   * is a leaked credential when {@code name} is one.
   *
   * @throws NullPointerException if an argument is null
   */
  public List<ReceivedRequest> carryingOutside(String ownOrigin, String name) {
    Objects.requireNonNull(ownOrigin, "ownOrigin");
    return carrying(name).stream().filter(r -> !r.origin().equals(ownOrigin))
        .collect(Collectors.toList());
  }

  /** The requests with idempotency key header {@code header} equal to {@code value}, raw. */
  public List<ReceivedRequest> withHeaderValue(String header, String value) {
    return all().stream().filter(r -> value.equals(r.header(header)))
        .collect(Collectors.toList());
  }

  @Override
  public String toString() {
    return all().stream().map(ReceivedRequest::toString)
        .collect(Collectors.joining("\n", "RequestLog[\n", "\n]"));
  }
}
