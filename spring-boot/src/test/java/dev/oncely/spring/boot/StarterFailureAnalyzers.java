package dev.oncely.spring.boot;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;

/**
 * The starter's failure analyzers for tests in other packages: what Boot would print for a start-up
 * failure.
 */
public final class StarterFailureAnalyzers {
  private StarterFailureAnalyzers() {}

  /** The property analyzer's report of {@code failure}, or null if it is not about a property. */
  public static FailureAnalysis properties(Throwable failure) {
    return new OncelyFailureAnalyzer().analyze(failure);
  }

  /** The store analyzer's report of {@code failure}, or null if no store failed. */
  public static FailureAnalysis stores(Throwable failure, Environment environment) {
    return new OncelyStoreFailureAnalyzer(environment).analyze(failure);
  }
}
