package dev.oncely.client.dialect;

import dev.oncely.client.StoredResponse;
import org.jspecify.annotations.Nullable;

/**
 * Decides what a server answer means. Implementations are pure functions of the response: thread-safe,
 * fast, never throwing.
 */
@FunctionalInterface
public interface ResponseClassifier {
  /**
   * Returns the verdict for {@code response}, or null to fall back to the {@linkplain
   * Dialects#standardVerdict(int) standard rules}.
   */
  @Nullable Verdict classify(StoredResponse response);
}
