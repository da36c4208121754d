package dev.oncely.cli.internal.conformance;

import java.util.Set;

/**
 * Writes the {@code Dialects.custom(...)} code that fits a {@link ServerProfile}. What was not
 * probed is written as a comment that says so, never guessed silently.
 */
final class DialectCode {
  /** Statuses servers commonly use for "in progress"; a mismatch on one needs a body test. */
  private static final Set<Integer> USUAL_IN_PROGRESS = Set.of(409, 425, 429);

  private DialectCode() {}

  static String of(String name, ServerProfile p) {
    StringBuilder code = new StringBuilder();
    code.append("Dialect dialect = Dialects.custom(\"").append(name).append("\")\n");
    code.append("    .keyHeader(\"").append(p.keyHeader).append("\")\n");
    code.append("    .quoteKey(").append(p.quoteKey).append(")\n");
    if (p.replayHeader != null) {
      code.append("    .replayHeader(\"").append(p.replayHeader).append("\")\n");
    } else {
      code.append("    // no replay marker seen: replays cannot be told from first answers\n");
    }
    boolean sameStatus = p.inProgressStatus != null && p.inProgressStatus.equals(p.mismatchStatus);
    if (p.inProgressStatus != null) {
      code.append("    .inProgressStatus(").append(p.inProgressStatus).append(")")
          .append(p.inProgressRetryAfter ? "" : "  // sent without Retry-After: the retry policy paces it")
          .append('\n');
    } else {
      code.append("    // in-progress status not observed (no overlap); 409 is the common answer\n");
    }
    if (p.mismatchStatus == null) {
      code.append("    // mismatch status not established\n");
    } else if (sameStatus || p.mismatchStatus == 400 || USUAL_IN_PROGRESS.contains(p.mismatchStatus)) {
      String token = p.mismatchBodyToken != null ? p.mismatchBodyToken : "FILL-IN";
      code.append("    // ").append(p.mismatchStatus).append(sameStatus
          ? " means both in progress and mismatch here: tell them apart by the body\n"
          : p.mismatchStatus == 400
              ? " also means other client errors: match the mismatch by its body\n"
              : " is also a usual in-progress answer: match the mismatch by its body\n");
      code.append("    .classifier(response -> response.status() == ").append(p.mismatchStatus)
          .append("\n        && new String(response.body(), StandardCharsets.UTF_8).contains(\"")
          .append(token).append("\")\n        ? Verdict.PAYLOAD_MISMATCH : null)\n");
    } else {
      code.append("    .mismatchStatus(").append(p.mismatchStatus).append(")\n");
    }
    if (Boolean.TRUE.equals(p.serverErrorReplayed) && p.replayHeader == null) {
      code.append("    // replays 5xx without a marker: add a classifier that returns RECONCILE for them\n");
    }
    code.append("    .keyRetention(Duration.ofHours(24))  // not probed: take it from the server's documentation\n");
    code.append("    .build();");
    return code.toString();
  }
}
