package dev.oncely.payload;

/**
 * A payload has no fingerprint: its body is not what its media type or content coding declares,
 * or volatile fields were named for a body they cannot apply to. Thrown by {@link Fingerprints}
 * before it returns; nothing else about the request is judged. The message names the refused
 * input ({@link Problem#argument()}) and the rule it broke, never the body's bytes; for the same
 * reason it has no cause (a JSON parser's message quotes the text it stopped at).
 */
public final class MalformedPayloadException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** What is wrong with the payload. */
  public enum Problem {
    /** A non-empty body whose media type names JSON is not one well-formed JSON value. */
    MALFORMED_JSON("body"),
    /** A body does not decode as its {@code Content-Encoding} declares. */
    NOT_AS_CODED("body"),
    /**
     * Volatile fields were named for a body that is not JSON, or is in a content coding that
     * {@link Fingerprints} does not decode.
     */
    VOLATILE_FIELDS_WITHOUT_JSON("volatileFields");

    private final String argument;

    Problem(String argument) {
      this.argument = argument;
    }

    /**
     * The refused input, named as the parameter of {@link Fingerprints#ofPayload(byte[], String,
     * String, java.util.Collection, long)} that carries it.
     *
     * @return {@code "body"} or {@code "volatileFields"}
     */
    public String argument() {
      return argument;
    }
  }

  /** What is wrong. */
  private final Problem problem;
  /** The broken rule, without the argument's name. */
  private final String detail;

  MalformedPayloadException(Problem problem, String detail) {
    super(problem.argument() + ": " + detail);
    this.problem = problem;
    this.detail = detail;
  }

  /**
   * What is wrong with the payload.
   *
   * @return the problem, never null
   */
  public Problem problem() {
    return problem;
  }

  /**
   * The broken rule as the message states it, without the argument's name in front.
   *
   * @return the detail, never null
   */
  public String detail() {
    return detail;
  }
}
