package dev.oncely.cli.internal.conformance;

/**
 * The facts the probes established about a server, from which {@link DialectCode} writes the
 * matching {@code Dialects.custom(...)} code. A null field was not established.
 */
final class ServerProfile {
  String keyHeader;
  boolean quoteKey;
  String replayHeader;
  Integer inProgressStatus;
  boolean inProgressRetryAfter;
  Integer mismatchStatus;
  String mismatchBodyToken;
  Boolean serverErrorReplayed;
  Integer longestKeyAccepted;
  Integer shortestKeyRefused;
}
