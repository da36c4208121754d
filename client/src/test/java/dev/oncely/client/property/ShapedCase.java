package dev.oncely.client.property;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * A case of {@link InterceptorPropertyTest}: the shared {@link AnswerCase} plus what only an app's
 * own OkHttp client builds: the request's shape, the app's credentials, and whether the
 * app re-issues its call (a new request of the same shape and tag) when it restarts.
 *
 * @param answers how the server behaves and the client crashes
 * @param shape the request the app builds
 * @param credentials the app's token and authenticator
 * @param reissue with a crash: the restarted app sends its call again before resuming
 */
record ShapedCase(AnswerCase answers, RequestShape shape, AppCredentials.Start credentials,
    boolean reissue, boolean pooled) {

  static Arbitrary<ShapedCase> cases() {
    return Combinators.combine(AnswerCases.cases(), shapes(), AppCredentials.starts(),
        Arbitraries.of(false, true), Arbitraries.of(false, true)).as(ShapedCase::new);
  }

  private static Arbitrary<RequestShape> shapes() {
    return Arbitraries.frequencyOf(
        Tuple.of(6, Arbitraries.just(RequestShape.JSON_POST)),
        Tuple.of(3, Arbitraries.of(RequestShape.DELETE, RequestShape.PATCH_JSON,
            RequestShape.EMPTY_POST, RequestShape.ONE_SHOT, RequestShape.STREAM,
            RequestShape.MULTIPART)),
        Tuple.of(2, Arbitraries.of(RequestShape.GZIP_JSON, RequestShape.OPAQUE_CODING)),
        Tuple.of(1, Arbitraries.of(RequestShape.STREAM_PAST_LIMIT, RequestShape.DUPLEX)));
  }

  @Override
  public String toString() {
    return answers + " shape=" + shape + " credentials=" + credentials
        + (reissue && answers.crash() != AnswerCase.Crash.NONE ? " reissue" : "")
        + (pooled ? " pooled" : "");
  }
}
