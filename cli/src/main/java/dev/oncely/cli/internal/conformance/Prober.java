package dev.oncely.cli.internal.conformance;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncely.client.dialect.Dialect;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs the probes against one endpoint, each with fresh keys, and collects {@link Finding}s and a
 * {@link ServerProfile}. Every probe's worst case of business effects is counted in
 * {@link #MAX_EFFECTS}; the run never creates more.
 */
final class Prober {
  /** Key lengths the length probe sends, each once with a fresh key. */
  static final int[] KEY_LENGTHS = {64, 255, 256};
  /**
   * The most business effects one run can create, when every repeat turns out to be a second
   * effect: two each for same key twice, duplicate in flight, another body, key order, query
   * string and server error, plus one per key length.
   */
  static final int MAX_EFFECTS = 6 * 2 + 3;

  /**
   * Most repeats while a {@code 202} operation is still processing: a repeat answered "in
   * progress" is sent again until it settles, at most this many times, before it is judged.
   */
  static final int SETTLE_TRIES = 5;
  /** Longest wait between two of those repeats ({@code Retry-After} is honoured up to it). */
  static final long MAX_SETTLE_WAIT_MS = 2000;

  private static final Set<Integer> IN_PROGRESS = Set.of(409, 423, 425, 429);
  private static final Pattern TOKEN = Pattern.compile("[A-Za-z_]*idempot[A-Za-z_]*",
      Pattern.CASE_INSENSITIVE);
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final SecureRandom RANDOM = new SecureRandom();

  private final ProbeClient client;
  private final String url;
  private final byte[] body;
  private final ObjectNode json;
  private final Map<String, String> errorHook;
  private final List<Finding> findings = new ArrayList<>();
  private final ServerProfile profile = new ServerProfile();
  /** The first answer of the same-key probe, when it was a {@code 202} with {@code Location}. */
  private Answer accepted;
  /** The settled repeat of {@link #accepted}: what the 202 probe judges. */
  private Answer acceptedRepeat;
  /** The first answer of that repeat when it was "in progress" before it settled, else null. */
  private Answer acceptedBusy;
  private boolean seen202;
  private int effects;
  /** The answers a built-in dialect is judged on ({@link DialectFit}); null when not seen. */
  private Answer replayed;
  private Answer mismatched;
  private Answer busyAnswer;
  private Answer replayedError;

  Prober(ProbeClient client, Dialect dialect, String url, String body,
      Map<String, String> errorHook) {
    this.client = client;
    this.url = url;
    this.body = body.getBytes(StandardCharsets.UTF_8);
    this.json = parseObject(body);
    this.errorHook = errorHook;
    profile.keyHeader = dialect.keyHeader();
    profile.quoteKey = !dialect.formatKey("k").equals("k");
  }

  private static ObjectNode parseObject(String body) {
    try {
      JsonNode node = MAPPER.readTree(body);
      return node instanceof ObjectNode object ? object : null;
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  /** Runs every probe, in order; stops early when the server refuses the body itself. */
  List<Finding> run() {
    if (!replay()) {
      return findings;
    }
    duplicateInFlight();
    anotherBody();
    keyOrder();
    queryString();
    keyLength();
    serverError();
    acceptedReplay();
    return findings;
  }

  ServerProfile profile() {
    return profile;
  }

  /** Business effects this run created, as far as the answers show. */
  int effects() {
    return effects;
  }

  /** Whether {@code dialect} reads the answers this run saw as what they are. */
  DialectFit fitOf(Dialect dialect) {
    return DialectFit.judge(dialect, replayed, mismatched, busyAnswer, replayedError);
  }

  private boolean replay() {
    String key = freshKey();
    Answer first = client.send(url, key, body);
    if (!first.success()) {
      findings.add(new Finding("same key twice", first.label(), "the first request was not"
          + " accepted, so nothing else was probed: pass a --body (and --header) the server"
          + " accepts" + (first.failedOnTransport() ? "" : "; it answered " + snippet(first)), true));
      return false;
    }
    effects++;
    Answer immediate = client.send(url, key, body);
    Answer second = settle(first, immediate, () -> client.send(url, key, body));
    noteAccepted(first, immediate, second);
    replayed = second;
    String marker = second.markerAgainst(first);
    if (marker != null) {
      profile.replayHeader = canonical(marker);
    }
    String answers = first.label() + " -> " + second.label();
    if (second.sameAs(first)) {
      findings.add(new Finding("same key twice", answers, "replayed byte for byte, "
          + (marker == null ? "without a replay marker" : "marked " + profile.replayHeader + ": "
              + second.header(marker)), false));
    } else if (first.status() == 202 && IN_PROGRESS.contains(second.status())) {
      findings.add(new Finding("same key twice", answers, "not established: the operation was"
          + " still processing after " + SETTLE_TRIES + " repeats", false));
    } else if (first.status() == 202 && second.success()) {
      findings.add(new Finding("same key twice", answers, "the repeat after processing got the"
          + " result" + (marker == null ? " without a replay marker" : ", marked "
              + profile.replayHeader + ": " + second.header(marker)), false));
    } else if (second.success() && marker == null) {
      effects++;
      findings.add(new Finding("same key twice", answers,
          "SECOND EFFECT: another successful answer for the same key and body", true));
    } else {
      findings.add(new Finding("same key twice", answers, "the repeat differs from the first"
          + " answer" + (marker == null ? "" : " (marked " + canonical(marker) + ")")
          + ": not a byte-identical replay", true));
    }
    return true;
  }

  private void duplicateInFlight() {
    String key = freshKey();
    CountDownLatch start = new CountDownLatch(1);
    List<CompletableFuture<Answer>> both = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      both.add(CompletableFuture.supplyAsync(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return client.send(url, key, body);
      }));
    }
    start.countDown();
    Answer a = both.get(0).join();
    Answer b = both.get(1).join();
    Answer busy = IN_PROGRESS.contains(a.status()) ? a : IN_PROGRESS.contains(b.status()) ? b : null;
    Answer other = busy == a ? b : a;
    String answers = busy == null ? a.label() + " + " + b.label() + " (concurrent)"
        : other.label() + " + " + busy.label() + " (concurrent)";
    if (other.success()) {
      effects++;
    }
    if (busy != null) {
      busyAnswer = busy;
      profile.inProgressStatus = busy.status();
      profile.inProgressRetryAfter = busy.header("Retry-After") != null;
      seen202 |= other.status() == 202;
      findings.add(new Finding("duplicate in flight", answers, "the second got " + busy.status()
          + (profile.inProgressRetryAfter ? " with Retry-After " + busy.header("Retry-After")
              : " without Retry-After"), false));
    } else if (a.success() && b.success() && !a.sameAs(b)
        && b.markerAgainst(a) == null && a.markerAgainst(b) == null) {
      effects++;
      findings.add(new Finding("duplicate in flight", answers,
          "SECOND EFFECT: two different successful answers for one key", true));
    } else if (a.success() && b.success()) {
      findings.add(new Finding("duplicate in flight", answers, "no overlap observed: one was"
          + " served as a replay (the server waited, or the first finished before the second"
          + " arrived)", false));
    } else {
      findings.add(new Finding("duplicate in flight", answers, "unexpected answers: "
          + snippet(a.success() ? b : a), true));
    }
  }

  private void anotherBody() {
    if (json == null) {
      findings.add(Finding.notProbed("same key, another body", "--body is not a JSON object"));
      return;
    }
    ObjectNode changed = changedCopy(json);
    Answer second = pairTo("same key, another body", url, bytes(changed),
        "the body is not checked: another body under the key got the first answer (Oncely"
            + " refuses a changed payload before sending)", "mismatch answered");
    if (second == null) {
      return;
    }
    if (!second.success() && !second.failedOnTransport() && second.status() < 500) {
      mismatched = second;
      profile.mismatchStatus = second.status();
      Matcher token = TOKEN.matcher(second.bodyText());
      profile.mismatchBodyToken = token.find() ? token.group() : null;
    }
  }

  private void keyOrder() {
    if (json == null || json.size() < 2) {
      findings.add(Finding.notProbed("key order", "--body is not a JSON object with two members"));
      return;
    }
    ObjectNode reversed = MAPPER.createObjectNode();
    List<String> names = new ArrayList<>();
    json.fieldNames().forEachRemaining(names::add);
    for (int i = names.size() - 1; i >= 0; i--) {
      reversed.set(names.get(i), json.get(names.get(i)));
    }
    pairTo("key order", url, bytes(reversed),
        "insensitive: member order does not change the fingerprint",
        "sensitive (the bytes are fingerprinted; Oncely resends the same bytes): answered");
  }

  private void queryString() {
    String probeUrl = url + (url.contains("?") ? "&" : "?") + "oncely_probe=1";
    pairTo("query string", probeUrl, body, "not part of the fingerprint",
        "part of the fingerprint: answered");
  }

  /**
   * Sends a fresh key with the body, then the same key with {@code secondBody} to
   * {@code secondUrl}, and words the outcome: {@code same} when the first answer is replayed,
   * {@code refused} and the status when the repeat is refused.
   */
  private Answer pairTo(String probe, String secondUrl, byte[] secondBody, String same,
      String refused) {
    String key = freshKey();
    Answer first = client.send(url, key, body);
    if (!first.success()) {
      findings.add(new Finding(probe, first.label(), "the first request was not accepted: "
          + snippet(first), true));
      return null;
    }
    effects++;
    Answer immediate = client.send(secondUrl, key, secondBody);
    seen202 |= first.status() == 202;
    Answer second = settle(first, immediate, () -> client.send(secondUrl, key, secondBody));
    String answers = first.label() + " -> " + second.label();
    boolean marked = second.markerAgainst(first) != null;
    if (first.status() == 202 && IN_PROGRESS.contains(second.status())) {
      findings.add(new Finding(probe, answers, "not established: the operation was still"
          + " processing after " + SETTLE_TRIES + " repeats", false));
    } else if (second.sameAs(first) || marked) {
      findings.add(new Finding(probe, answers, same, false));
    } else if (first.status() == 202 && second.success()) {
      findings.add(new Finding(probe, answers, "ambiguous: the result after processing carries"
          + " no replay marker, so a replay cannot be told from a new effect", false));
    } else if (second.success()) {
      effects++;
      findings.add(new Finding(probe, answers, "a new effect under the same key"
          + " (the server keys on more than the key)", true));
    } else if (second.failedOnTransport()) {
      findings.add(new Finding(probe, answers, "no answer to the second request", true));
    } else {
      findings.add(new Finding(probe, answers, refused + " " + snippet(second), false));
    }
    return second;
  }

  private void keyLength() {
    List<String> parts = new ArrayList<>();
    boolean risk = false;
    for (int length : KEY_LENGTHS) {
      Answer answer = client.send(url, randomKey(length), body);
      if (answer.success()) {
        effects++;
        profile.longestKeyAccepted = length;
        parts.add(length + " accepted");
      } else {
        if (profile.shortestKeyRefused == null) {
          profile.shortestKeyRefused = length;
        }
        parts.add(length + " refused (" + answer.label() + ")");
        risk |= length <= 255;
      }
    }
    String verdict = profile.shortestKeyRefused == null
        ? "no limit up to " + KEY_LENGTHS[KEY_LENGTHS.length - 1] + " characters"
        : "keys of " + profile.shortestKeyRefused + " characters are refused"
            + (risk ? "; keep derived and existing keys shorter (Oncely allows 255)"
                : "; Oncely's keys (32 characters, at most 255) fit");
    findings.add(new Finding("key length", String.join(", ", parts), verdict, risk));
  }

  private void serverError() {
    if (errorHook.isEmpty()) {
      findings.add(Finding.notProbed("5xx from the handler",
          "the server needs a test hook for it (pass --server-error-header)"));
      return;
    }
    String key = freshKey();
    Answer failure = client.send(url, key, body, errorHook);
    if (failure.status() < 500) {
      findings.add(new Finding("5xx from the handler", failure.label(),
          "the hook did not produce a 5xx", true));
      return;
    }
    Answer again = client.send(url, key, body);
    String answers = failure.label() + " -> " + again.label();
    if (again.success()) {
      effects++;
      profile.serverErrorReplayed = false;
      findings.add(new Finding("5xx from the handler", answers,
          "re-executed: the key was released after the error (a retry is safe)", false));
    } else if (again.status() == failure.status()) {
      replayedError = again;
      profile.serverErrorReplayed = true;
      String marker = again.markerAgainst(failure);
      findings.add(new Finding("5xx from the handler", answers, "replayed the error"
          + (marker == null ? " WITHOUT a replay marker: Oncely retries it until its budget ends"
              : " (marked " + canonical(marker) + "): Oncely sends it to reconciliation"),
          marker == null));
    } else {
      findings.add(new Finding("5xx from the handler", answers, "unexpected: " + snippet(again),
          true));
    }
  }

  /**
   * Judges the repeat of a {@code 202} that named a status URL, once it settled: while the
   * operation runs a repeat should get the {@code 202} again with its {@code Location} (a client
   * that lost the first answer finds the status URL there). A repeat answered "in progress"
   * (a {@code 409} + {@code Retry-After}) is acceptable: Oncely waits and resends the same key, and
   * the settled repeat is what is judged; the result once the operation finished needs no status
   * URL. Only a {@code 202} replay without {@code Location} is a risk.
   */
  private void acceptedReplay() {
    if (accepted == null) {
      findings.add(Finding.notProbed("202 replay keeps Location", seen202
          ? "the 202 answers carried no Location (no status URL to keep)"
          : "no request was answered 202 (the server answered synchronously)"));
      return;
    }
    Answer repeat = acceptedRepeat;
    String answers = accepted.label() + " -> " + repeat.label();
    String whileRunning = acceptedBusy == null ? ""
        : " after " + acceptedBusy.status() + " (in progress"
            + (acceptedBusy.header("Retry-After") != null ? ", with Retry-After" : "")
            + ") while it ran";
    if (repeat.status() == 202) {
      boolean location = repeat.header("Location") != null;
      boolean retryAfter = repeat.header("Retry-After") != null;
      findings.add(new Finding("202 replay keeps Location", answers, "the repeat "
          + (location ? "keeps Location" : "LOSES Location") + ", "
          + (retryAfter ? "keeps" : "has no") + " Retry-After" + whileRunning, !location));
    } else if (IN_PROGRESS.contains(repeat.status())) {
      findings.add(new Finding("202 replay keeps Location", answers, "not established: the"
          + " repeat was still answered " + repeat.status() + " (in progress) after "
          + SETTLE_TRIES + " repeats; Oncely waits on it and resends the same key", false));
    } else if (repeat.success()) {
      findings.add(new Finding("202 replay keeps Location", answers, "not established: the"
          + " repeat got the result once the operation finished" + whileRunning
          + "; no status URL is needed then", false));
    } else {
      findings.add(new Finding("202 replay keeps Location", answers, "not established: the"
          + " repeat was answered " + snippet(repeat), false));
    }
  }

  /**
   * When {@code first} was a {@code 202} and the repeat got "in progress", repeats after the
   * server's {@code Retry-After} (at most {@value #SETTLE_TRIES} times, each wait at most
   * {@value #MAX_SETTLE_WAIT_MS} ms) until the operation has finished.
   */
  private static Answer settle(Answer first, Answer repeat, Supplier<Answer> again) {
    Answer answer = repeat;
    for (int i = 0; i < SETTLE_TRIES && first.status() == 202
        && IN_PROGRESS.contains(answer.status()); i++) {
      try {
        Thread.sleep(waitMillis(answer));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return answer;
      }
      answer = again.get();
    }
    return answer;
  }

  private static long waitMillis(Answer answer) {
    String retryAfter = answer.header("Retry-After");
    try {
      long seconds = retryAfter == null ? 0 : Long.parseLong(retryAfter.trim());
      return Math.min(MAX_SETTLE_WAIT_MS, Math.max(100, seconds * 1000));
    } catch (NumberFormatException e) {
      return MAX_SETTLE_WAIT_MS;
    }
  }

  /**
   * Keeps a {@code 202} with {@code Location} and the settled repeat of the same request for the
   * 202 probe; {@code immediate} is the repeat's first answer, kept when it was "in progress".
   */
  private void noteAccepted(Answer first, Answer immediate, Answer settled) {
    seen202 |= first.status() == 202;
    if (accepted == null && first.status() == 202 && first.header("Location") != null) {
      accepted = first;
      acceptedRepeat = settled;
      acceptedBusy = IN_PROGRESS.contains(immediate.status()) ? immediate : null;
    }
  }

  private static ObjectNode changedCopy(ObjectNode original) {
    ObjectNode copy = original.deepCopy();
    for (Map.Entry<String, JsonNode> field : original.properties()) {
      if (field.getValue().canConvertToExactIntegral() && field.getValue().isNumber()) {
        copy.put(field.getKey(), field.getValue().asLong() + 1);
        return copy;
      }
    }
    copy.put("oncelyProbe", "another body");
    return copy;
  }

  private static byte[] bytes(JsonNode node) {
    try {
      return MAPPER.writeValueAsBytes(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a parsed JSON object always serializes", e);
    }
  }

  private static String snippet(Answer answer) {
    if (answer.failedOnTransport()) {
      return answer.failure();
    }
    String text = answer.bodyText().replaceAll("\\s+", " ").trim();
    return answer.status() + (text.isEmpty() ? "" : " "
        + (text.length() > 80 ? text.substring(0, 77) + "..." : text));
  }

  private static String canonical(String lowerCaseHeader) {
    StringBuilder out = new StringBuilder();
    boolean upper = true;
    for (char c : lowerCaseHeader.toCharArray()) {
      out.append(upper ? Character.toUpperCase(c) : c);
      upper = c == '-';
    }
    return out.toString();
  }

  private static String freshKey() {
    byte[] bytes = new byte[18];
    RANDOM.nextBytes(bytes);
    return "conformance-" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private static String randomKey(int length) {
    StringBuilder key = new StringBuilder("conformance-");
    while (key.length() < length) {
      key.append(freshKey().substring("conformance-".length()));
    }
    return key.substring(0, length);
  }

  static Map<String, String> header(String line) {
    int colon = line.indexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("a header is 'Name: value', was without a colon");
    }
    Map<String, String> one = new LinkedHashMap<>();
    one.put(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
    return one;
  }
}
