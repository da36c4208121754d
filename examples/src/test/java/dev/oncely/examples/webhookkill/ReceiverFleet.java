package dev.oncely.examples.webhookkill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntFunction;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * The receivers of a kill test: {@code size} {@link ReceiverProcess}es, each restarted on its own
 * files (MapDB) or the shared database (PostgreSQL) and on the port it bound first, so senders keep
 * their URLs. It tells senders which receivers are up, and completes what they wait on when one
 * (re)starts; it counts the lines every receiver prints ({@link ReceiverProcess.Progress}).
 */
final class ReceiverFleet implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path dir;
  private final Map<String, String> secrets;
  private final IntFunction<List<String>> argsOf;
  private final ReceiverProcess.Progress progress = new ReceiverProcess.Progress();
  private final ReceiverProcess[] processes;
  private final int[] ports;
  private final long[] generations;
  private final boolean[] up;
  private final List<CompletableFuture<Void>> waiting = new ArrayList<>();
  private final OkHttpClient http = new OkHttpClient.Builder()
      .readTimeout(Duration.ofSeconds(30)).build();
  private int starts;
  private long restartNanos;

  /**
   * A fleet of {@code size} receivers verifying with {@code secrets} (by source); {@code argsOf}
   * gives instance {@code i}'s arguments but {@code --port} and {@code --tomcat}.
   */
  ReceiverFleet(Path dir, int size, Map<String, String> secrets,
      IntFunction<List<String>> argsOf) {
    this.dir = dir;
    this.secrets = Map.copyOf(secrets);
    this.argsOf = argsOf;
    this.processes = new ReceiverProcess[size];
    this.ports = new int[size];
    this.generations = new long[size];
    this.up = new boolean[size];
  }

  /** Starts every receiver, at the same time. */
  void startAll() throws Exception {
    List<CompletableFuture<Void>> started = new ArrayList<>();
    for (int i = 0; i < processes.length; i++) {
      int index = i;
      started.add(CompletableFuture.runAsync(() -> {
        try {
          start(index);
        } catch (IOException | InterruptedException e) {
          throw new CompletionException(e);
        }
      }));
    }
    for (CompletableFuture<Void> f : started) {
      f.get();
    }
  }

  /** How many receivers the fleet has. */
  int size() {
    return processes.length;
  }

  /** The receiver running as instance {@code i} now. */
  synchronized ReceiverProcess process(int i) {
    return processes[i];
  }

  /** The lines printed by every receiver. */
  ReceiverProcess.Progress progress() {
    return progress;
  }

  /** How many receivers were started, restarts included. */
  synchronized int starts() {
    return starts;
  }

  /** How long the restarts after kills took, in total (from the SIGKILL to listening). */
  synchronized long restartMillis() {
    return restartNanos / 1_000_000;
  }

  /** SIGKILLs instance {@code i}, then starts it again on the same files and port. */
  void killAndRestart(int i) throws IOException, InterruptedException {
    long started = System.nanoTime();
    ReceiverProcess victim = process(i);
    int status = victim.kill();
    synchronized (this) {
      up[i] = false;
    }
    if (status != 137) {
      throw new AssertionError("instance " + i + " exited " + status + " instead of being"
          + " killed; stderr: " + victim.stderrText());
    }
    start(i);
    synchronized (this) {
      restartNanos += System.nanoTime() - started;
    }
  }

  /** Stops every receiver cleanly; fails if one does not exit 0. */
  void stopAll() throws IOException, InterruptedException {
    for (int i = 0; i < processes.length; i++) {
      ReceiverProcess p = process(i);
      synchronized (this) {
        up[i] = false;
      }
      int status = p.stop();
      if (status != 0) {
        throw new AssertionError("instance " + i + " did not stop cleanly (status " + status
            + "); stderr: " + p.stderrText());
      }
    }
  }

  /** One receiver as a sender saw it: which one, which run of it, and its URL. */
  record Target(int index, long generation, String baseUrl) {}

  /**
   * A receiver that is up, at random, preferring one other than {@code avoid}'s (the one a
   * delivery just failed on); null when none is up.
   */
  synchronized Target pick(Target avoid) {
    List<Integer> live = new ArrayList<>();
    for (int i = 0; i < up.length; i++) {
      if (up[i]) {
        live.add(i);
      }
    }
    if (live.size() > 1 && avoid != null) {
      live.remove(Integer.valueOf(avoid.index()));
    }
    if (live.isEmpty()) {
      return null;
    }
    int i = live.get(ThreadLocalRandom.current().nextInt(live.size()));
    return new Target(i, generations[i], processes[i].baseUrl());
  }

  /**
   * Completes once a receiver other than {@code tried}'s is up or {@code tried}'s was restarted
   * (at once if so now); {@code tried} null: once any receiver is up.
   */
  synchronized CompletableFuture<Void> changeAfter(Target tried) {
    for (int i = 0; i < up.length; i++) {
      if (up[i] && (tried == null || i != tried.index() || generations[i] > tried.generation())) {
        return CompletableFuture.completedFuture(null);
      }
    }
    CompletableFuture<Void> f = new CompletableFuture<>();
    waiting.add(f);
    return f;
  }

  /** {@code GET /stats} of a receiver that is up. */
  JsonNode stats() throws IOException {
    Target t = pick(null);
    if (t == null) {
      throw new IllegalStateException("no receiver is up");
    }
    try (Response r = http.newCall(new Request.Builder().url(t.baseUrl() + "stats").build())
        .execute()) {
      if (r.code() != 200) {
        throw new IOException("GET /stats answered " + r.code() + ": " + r.body().string());
      }
      return JSON.readTree(r.body().bytes());
    }
  }

  /** The last lines of every receiver's stderr, for failure messages. */
  String stderrTexts() {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < processes.length; i++) {
      ReceiverProcess p = process(i);
      out.append("\n--- instance ").append(i).append(" stderr:\n")
          .append(p == null ? "(not started)" : p.stderrText());
    }
    return out.toString();
  }

  private void start(int i) throws IOException, InterruptedException {
    int port;
    long generation;
    synchronized (this) {
      port = ports[i];
      generation = generations[i];
    }
    List<String> args = new ArrayList<>(argsOf.apply(i));
    args.addAll(List.of("--port", Integer.toString(port),
        "--tomcat", dir.resolve("tomcat-" + i).toString()));
    String name = "receiver-" + i + "-" + generation;
    ReceiverProcess p = ReceiverProcess.start(dir, name, args, secrets, progress);
    List<CompletableFuture<Void>> woken;
    synchronized (this) {
      processes[i] = p;
      ports[i] = p.port();
      generations[i]++;
      up[i] = true;
      starts++;
      woken = new ArrayList<>(waiting);
      waiting.clear();
    }
    woken.forEach(f -> f.complete(null));
  }

  @Override
  public void close() {
    for (int i = 0; i < processes.length; i++) {
      ReceiverProcess p = process(i);
      if (p != null) {
        p.destroy();
      }
    }
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
  }
}
