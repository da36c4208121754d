package dev.oncely.client.property;

import dev.oncely.client.property.AnswerCase.Crash;
import dev.oncely.client.property.AnswerCase.Mismatch;
import dev.oncely.client.property.AnswerCase.Profile;
import dev.oncely.client.property.AnswerCase.Step;
import dev.oncely.client.property.AnswerCase.Twist;
import dev.oncely.testing.Fault.Kind;
import dev.oncely.testing.KeyQuoting;
import dev.oncely.testing.PollStyle;
import dev.oncely.testing.ServerErrors;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/** The generator both property tests share. */
final class AnswerCases {
  /**
   * Answers something in front of the server gives instead of the server, 3xx-5xx (2xx come from
   * the server itself: a proxy that answers 2xx without passing the request on fools every client,
   * so it is no case to generate; 1xx come as {@link Kind#INFORMATIONAL}, 3xx as redirects).
   */
  static final List<Integer> ANSWERS = statuses(
      400, 401, 403, 404, 405, 408, 409, 410, 412, 413, 415, 421, 422, 425, 429,
      500, 501, 502, 503, 504, 505, 507, 508, 511);
  /** 5xx a gateway gives after the origin committed. */
  static final List<Integer> GATEWAY = statuses(500, 502, 503, 504, 598, 599);

  private AnswerCases() {}

  private static List<Integer> statuses(int... codes) {
    List<Integer> all = new ArrayList<>();
    for (int c : codes) {
      all.add(c);
    }
    return all;
  }

  private static List<Integer> withCloudflare(List<Integer> base) {
    List<Integer> all = new ArrayList<>(base);
    for (int c = 520; c <= 530; c++) {
      all.add(c);
    }
    all.add(598);
    all.add(599);
    return all;
  }

  static Arbitrary<AnswerCase> cases() {
    return Combinators.combine(profiles(), steps().list().ofMaxSize(8),
        Arbitraries.integers().between(1, 6),
        Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.just(Crash.NONE)),
            Tuple.of(2, Arbitraries.just(Crash.RESUME_AFTER_OUTCOME)),
            Tuple.of(1, Arbitraries.just(Crash.CLOSE_RIGHT_AFTER_SUBMIT)),
            Tuple.of(1, Arbitraries.just(Crash.RESUME_NEXT_DAY)),
            Tuple.of(1, Arbitraries.just(Crash.OFFLINE_RESUME_THEN_NEXT_DAY)),
            Tuple.of(1, Arbitraries.just(Crash.CLOSE_WHILE_WAITING))),
        Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.just(KeyQuoting.EITHER)),
            Tuple.of(1, Arbitraries.just(KeyQuoting.QUOTED)),
            Tuple.of(1, Arbitraries.just(KeyQuoting.PLAIN))),
        Arbitraries.of(false, true),
        twists())
        .as(AnswerCase::new);
  }

  static Arbitrary<Twist> twists() {
    return Arbitraries.frequencyOf(Tuple.of(10, Arbitraries.just(Twist.NONE)),
        Tuple.of(2, Arbitraries.of(Twist.CONCURRENT_SUBMIT, Twist.OUTER_RETRY,
            Twist.CANCEL_AFTER_WRITE, Twist.OTHER_ENTRY_POINT_RESUMES)),
        Tuple.of(1, Arbitraries.of(Twist.PROVIDER_THROWS, Twist.PROVIDER_REFUSED_VALUE,
            Twist.SECOND_SCOPE)));
  }

  static Arbitrary<Profile> profiles() {
    return Combinators.combine(
        Arbitraries.of(Mismatch.class),
        Arbitraries.of(ServerErrors.class),
        Arbitraries.of(false, true),
        Arbitraries.of(PollStyle.class),
        Arbitraries.of(false, true),
        Arbitraries.of(true, false),
        Arbitraries.of(false, true),
        Arbitraries.integers().between(0, 2))
        .as((mismatch, errors, async, poll, other, location, forever, polls) ->
            new Profile(mismatch, errors, async, poll, async && other, location,
                async && forever, polls));
  }

  static Arbitrary<Step> steps() {
    Arbitrary<Integer> redirectStatus = Arbitraries.of(301, 302, 303, 307, 308);
    return Arbitraries.frequencyOf(
        Tuple.of(30, Arbitraries.just(Step.NONE)),
        Tuple.of(12, Arbitraries.of(withCloudflare(ANSWERS))
            .map(s -> new Step(Kind.ANSWER_BEFORE_HANDLING, s, false))),
        Tuple.of(2, Arbitraries.of(102, 103).map(s -> new Step(Kind.INFORMATIONAL, s, false))),
        Tuple.of(6, Combinators.combine(redirectStatus, Arbitraries.of(false, true))
            .as((s, foreign) -> new Step(Kind.REDIRECT, s, foreign))),
        Tuple.of(4, Arbitraries.just(new Step(Kind.REFUSE, 0, false))),
        Tuple.of(6, Arbitraries.just(new Step(Kind.DROP_AFTER_COMMIT, 0, false))),
        Tuple.of(2, Arbitraries.just(new Step(Kind.STALL_AFTER_COMMIT, 0, false))),
        Tuple.of(3, Arbitraries.just(new Step(Kind.TRUNCATE_BODY, 0, false))),
        Tuple.of(6, Arbitraries.of(withCloudflare(GATEWAY))
            .map(s -> new Step(Kind.GATEWAY_AFTER_COMMIT, s, false))),
        Tuple.of(2, Arbitraries.just(new Step(Kind.SEE_OTHER_AFTER_COMMIT, 303, false))),
        Tuple.of(4, Arbitraries.of(401, 403, 407).map(s -> new Step(Kind.AUTH_ON_RETRY, s, false))),
        Tuple.of(4, Arbitraries.of(500, 502, 503, 507, 524)
            .map(s -> new Step(Kind.HANDLER_ERROR, s, false))),
        Tuple.of(3, Arbitraries.just(new Step(Kind.LOST_RECORD, 0, false))),
        Tuple.of(3, Arbitraries.just(new Step(Kind.LOST_FINGERPRINT, 0, false))),
        Tuple.of(1, Arbitraries.just(new Step(Kind.LATE_ORIGINAL, 0, false))));
  }
}
