package dev.oncely.benchmarks.internal;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What one measured window cost the client: CPU time and bytes allocated by every thread of the
 * process except the server's, and the time the JIT compiler spent inside the window; and what
 * the server's own threads used of both.
 *
 * <p>CPU is the process's CPU time (every thread, including GC and compiler threads, which the
 * client's work causes) minus the CPU time of the server's threads, read per thread with {@link
 * java.lang.management.ThreadMXBean#getThreadCpuTime(long)} at both ends of the window. Allocation
 * is {@link com.sun.management.ThreadMXBean#getThreadAllocatedBytes(long[])} summed over the
 * threads alive at the end of the window that are not the server's (a thread that started and died
 * inside the window is missed; the load threads live until the end is read), minus what each had
 * allocated at the start. Not thread-safe: one window at a time.
 */
public final class CostMeter {
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private static final CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();
  /** USER_HZ: the unit of the CPU times in {@code /proc}; 100 on every Linux ABI in use. */
  private static final long CLOCK_TICKS = 100;

  private final Supplier<Set<Long>> serverThreadsNow;
  private Set<Long> serverThreads;
  private long processCpu0;
  private Map<Long, Long> serverCpu0 = Map.of();
  private long compileMillis0;
  private long compilerCpu0;
  private Map<Long, Long> allocated0 = Map.of();

  /**
   * What a window cost.
   *
   * @param clientCpuNanos process CPU minus the server threads' CPU
   * @param serverCpuNanos CPU of the server's threads
   * @param clientAllocatedBytes bytes allocated by threads that are not the server's
   * @param compileMillis time the JIT compilers spent during the window (wall time of each
   *     compilation, as {@link CompilationMXBean} counts it: inflated when the machine is busy)
   * @param compilerCpuNanos CPU time of the JIT compiler threads during the window, or -1 where
   *     it cannot be read (it comes from {@code /proc/self/task}, so Linux only)
   * @param serverAllocatedBytes bytes allocated by the server's threads
   */
  public record Cost(long clientCpuNanos, long serverCpuNanos, long clientAllocatedBytes,
      long compileMillis, long compilerCpuNanos, long serverAllocatedBytes) {
    /**
     * Whether the JIT was busy enough to distort the window: its CPU time (or, where that is not
     * known, its compile time) above {@code share} of the client's CPU time, and above two ticks
     * of {@code /proc}'s clock (20 ms), below which the reading is only its resolution.
     */
    public boolean compilerBusy(double share) {
      long jit = compilerCpuNanos >= 0 ? compilerCpuNanos : compileMillis * 1_000_000L;
      return jit > share * clientCpuNanos && jit > 2 * (1_000_000_000L / CLOCK_TICKS);
    }

    /** The compiler's work in the window for the console: CPU where known, and compile time. */
    public String describeCompiler() {
      return (compilerCpuNanos >= 0 ? String.format(java.util.Locale.ROOT, "JIT CPU %4d ms, ",
          compilerCpuNanos / 1_000_000) : "") + String.format(java.util.Locale.ROOT,
          "compile time %4d ms", compileMillis);
    }
  }

  /** A meter that treats {@code serverThreads} as the server's and every other thread as the client's. */
  public CostMeter(Set<Long> serverThreads) {
    this(fixed(serverThreads));
  }

  /**
   * A meter whose server threads are the ones {@code serverThreads} names at the start and at the
   * end of the window: a thread a pool started during the window counts from zero, so a server
   * whose idle threads ended (Tomcat's, after a minute) and restart under load is measured whole.
   */
  public CostMeter(Supplier<Set<Long>> serverThreads) {
    this.serverThreadsNow = serverThreads;
    this.serverThreads = Set.copyOf(serverThreads.get());
    if (!THREADS.isThreadCpuTimeSupported() || !THREADS.isThreadAllocatedMemorySupported()) {
      throw new IllegalStateException("this JVM cannot measure per-thread CPU or allocation");
    }
    THREADS.setThreadCpuTimeEnabled(true);
    THREADS.setThreadAllocatedMemoryEnabled(true);
  }

  /** Whether the JVM reports compile time (HotSpot does); without it no window can be judged settled. */
  public static boolean compileTimeMeasured() {
    return JIT != null && JIT.isCompilationTimeMonitoringSupported();
  }

  /** Total JIT compile time so far, in milliseconds. */
  public static long compileMillis() {
    return compileTimeMeasured() ? JIT.getTotalCompilationTime() : 0;
  }

  /**
   * CPU time of the JIT compiler threads ({@code C1/C2 CompilerThread}, which the management
   * beans do not list) from {@code /proc/self/task/<tid>/stat}, or -1 where that is not readable.
   */
  public static long compilerCpuNanos() {
    Path tasks = Path.of("/proc/self/task");
    if (!Files.isDirectory(tasks)) {
      return -1;
    }
    long ticks = 0;
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(tasks)) {
      for (Path task : dirs) {
        try {
          String stat = Files.readString(task.resolve("stat"));
          int open = stat.indexOf('(');
          int close = stat.lastIndexOf(')');
          if (open < 0 || close < open || !stat.substring(open + 1, close).contains("Compiler")) {
            continue;
          }
          // Fields after the name: state is field 3, utime field 14, stime field 15.
          String[] f = stat.substring(close + 2).split(" ");
          ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
        } catch (IOException | RuntimeException gone) {
          // The thread ended between listing and reading: its time is lost either way.
        }
      }
    } catch (IOException e) {
      return -1;
    }
    return ticks * (1_000_000_000L / CLOCK_TICKS);
  }

  /** Marks the start of a window. */
  public void start() {
    allocated0 = allocatedByThread();
    serverThreads = Set.copyOf(serverThreadsNow.get());
    serverCpu0 = serverCpuByThread();
    compileMillis0 = compileMillis();
    compilerCpu0 = compilerCpuNanos();
    processCpu0 = OS.getProcessCpuTime();
  }

  /** What happened since {@link #start()}; call while the window's threads are still alive. */
  public Cost stop() {
    long processCpu = OS.getProcessCpuTime();
    long compilerCpu = compilerCpuNanos();
    long compile = compileMillis();
    Set<Long> both = new HashSet<>(serverThreads);
    both.addAll(serverThreadsNow.get());
    serverThreads = Set.copyOf(both);
    long server = 0;
    for (Map.Entry<Long, Long> e : serverCpuByThread().entrySet()) {
      server += e.getValue() - serverCpu0.getOrDefault(e.getKey(), 0L);
    }
    Map<Long, Long> allocated = allocatedByThread();
    long bytes = 0;
    long serverBytes = 0;
    for (Map.Entry<Long, Long> e : allocated.entrySet()) {
      long delta = e.getValue() - allocated0.getOrDefault(e.getKey(), 0L);
      if (serverThreads.contains(e.getKey())) {
        serverBytes += delta;
      } else {
        bytes += delta;
      }
    }
    return new Cost(processCpu - processCpu0 - server, server, bytes, compile - compileMillis0,
        compilerCpu < 0 || compilerCpu0 < 0 ? -1 : compilerCpu - compilerCpu0, serverBytes);
  }

  /** CPU time of each live server thread (one that ended is left out). */
  private Map<Long, Long> serverCpuByThread() {
    Map<Long, Long> out = new HashMap<>();
    for (long id : serverThreads) {
      long t = THREADS.getThreadCpuTime(id);
      if (t >= 0) {
        out.put(id, t);
      }
    }
    return out;
  }

  private static Supplier<Set<Long>> fixed(Set<Long> threads) {
    Set<Long> copy = Set.copyOf(threads);
    return () -> copy;
  }

  private static Map<Long, Long> allocatedByThread() {
    long[] ids = THREADS.getAllThreadIds();
    long[] bytes = THREADS.getThreadAllocatedBytes(ids);
    Map<Long, Long> out = new HashMap<>();
    for (int i = 0; i < ids.length; i++) {
      if (bytes[i] >= 0) {
        out.put(ids[i], bytes[i]);
      }
    }
    return out;
  }
}
