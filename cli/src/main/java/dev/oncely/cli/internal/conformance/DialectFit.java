package dev.oncely.cli.internal.conformance;

import dev.oncely.client.StoredResponse;
import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.dialect.Verdict;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether the built-in dialect named on the command line fits the server: the answers the probes
 * saw, read by that very {@link Dialect} as the client would read them. It fits when the replay
 * reads as done (or accepted), the mismatch answer as a payload mismatch, the in-progress answer
 * (when one was seen) as "resend the same key", and a replayed 5xx (when the hook showed one) as
 * needing reconciliation. Without a mismatch answer the fit is not established: a dialect that
 * read another body's refusal as a plain rejection would end an intent the server still holds.
 *
 * @param verdict fits, does not fit, or not established
 * @param detail the reading behind the verdict, in words
 */
record DialectFit(Fit verdict, String detail) {
  /** The three verdicts. */
  enum Fit {
    FITS("fits"), DOES_NOT_FIT("does NOT fit"), NOT_ESTABLISHED("fit not established");

    private final String words;

    Fit(String words) {
      this.words = words;
    }
  }

  static DialectFit judge(Dialect dialect, Answer replay, Answer mismatch, Answer busy,
      Answer replayedError) {
    List<String> reads = new ArrayList<>();
    List<String> wrong = new ArrayList<>();
    List<String> unseen = new ArrayList<>();
    if (seen(replay)) {
      Verdict v = dialect.classify(stored(replay));
      if (v == Verdict.COMPLETED || v == Verdict.ACCEPTED) {
        reads.add("the replay (" + replay.status() + ") as "
            + (v == Verdict.COMPLETED ? "completed" : "accepted"));
      } else {
        wrong.add("it reads the replay (" + replay.status() + ") as " + v);
      }
    } else {
      unseen.add("no replay was seen");
    }
    if (seen(mismatch)) {
      Verdict v = dialect.classify(stored(mismatch));
      if (v == Verdict.PAYLOAD_MISMATCH) {
        reads.add("the mismatch answer (" + mismatch.status() + ") as a payload mismatch");
      } else {
        wrong.add("it reads the mismatch answer (" + mismatch.status() + ") as " + v
            + ", not as a payload mismatch");
      }
    } else {
      unseen.add("no mismatch answer was seen");
    }
    if (seen(busy)) {
      Verdict v = dialect.classify(stored(busy));
      if (v == Verdict.IN_PROGRESS || v == Verdict.RETRY) {
        reads.add("the in-progress answer (" + busy.status() + ") as "
            + (v == Verdict.IN_PROGRESS ? "in progress" : "a retry with the same key"));
      } else {
        wrong.add("it reads the in-progress answer (" + busy.status() + ") as " + v);
      }
    }
    if (seen(replayedError)) {
      Verdict v = dialect.classify(stored(replayedError));
      if (v == Verdict.RECONCILE) {
        reads.add("the replayed " + replayedError.status() + " as needing reconciliation");
      } else {
        wrong.add("it reads the replayed " + replayedError.status() + " as " + v
            + " (resent until the retry budget ends)");
      }
    }
    if (!wrong.isEmpty()) {
      return new DialectFit(Fit.DOES_NOT_FIT, String.join("; ", wrong)
          + "; use the code below");
    }
    if (!unseen.isEmpty()) {
      return new DialectFit(Fit.NOT_ESTABLISHED, String.join("; ", unseen));
    }
    return new DialectFit(Fit.FITS, "it reads " + String.join(", ", reads));
  }

  /** One line: {@code Dialects.ietf() fits: it reads ...}. */
  String line(Dialect dialect) {
    return "Dialects." + dialect.name() + "() " + verdict.words + ": " + detail + ".";
  }

  /** The verdict for JSON: {@code fits}, {@code does not fit} or {@code not established}. */
  String verdictText() {
    return switch (verdict) {
      case FITS -> "fits";
      case DOES_NOT_FIT -> "does not fit";
      case NOT_ESTABLISHED -> "not established";
    };
  }

  private static boolean seen(Answer answer) {
    return answer != null && !answer.failedOnTransport();
  }

  private static StoredResponse stored(Answer answer) {
    return StoredResponse.of(answer.status(), answer.headers(), answer.body());
  }
}
