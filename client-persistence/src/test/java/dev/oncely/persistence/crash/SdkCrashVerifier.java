package dev.oncely.persistence.crash;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Checks a store and the server after a crash against the promises of the SDK: at most one business
 * effect and one key per order on the server; every record the child acknowledged (or the server
 * saw a request of) is present, under the key the server saw, holding exactly the intent's method,
 * URL, headers, body bytes, media type and fingerprint (the engine verifies its checksums on every read);
 * every acknowledged outcome is still stored, with the server's response byte for byte; the
 * unfinished index lists exactly the unfinished records. At the end, every intent is completed with
 * exactly one effect.
 */
final class SdkCrashVerifier {
  private SdkCrashVerifier() {}

  /** Returns every broken promise; empty when the store and server are right. */
  static List<String> problems(IntentStore store, EffectServer server, String baseUrl, int count,
      SdkAcks acks, boolean end) {
    List<String> problems = new ArrayList<>();
    Set<String> unfinished = new HashSet<>();
    for (int n = 0; n < count; n++) {
      String order = SdkWorkload.order(n);
      Set<String> keys = server.keysOf(order);
      int effects = server.effectsOf(order);
      if (effects > 1 || keys.size() > 1) {
        problems.add(order + ": " + effects + " business effects under " + keys.size()
            + " keys on the server");
      }
      Optional<IntentRecord> stored;
      try {
        stored = store.findByBusinessId(SdkWorkload.SCOPE, SdkWorkload.OPERATION, order);
      } catch (RuntimeException e) {
        problems.add(order + ": read failed: " + e);
        continue;
      }
      if (stored.isEmpty()) {
        if (acks.created(n) || !keys.isEmpty() || end) {
          problems.add(order + ": record lost (acknowledged " + acks.created(n) + ", server saw "
              + keys.size() + " keys)");
        }
        continue;
      }
      IntentRecord r = stored.get();
      problems.addAll(checkRecord(store, r, SdkWorkload.spec(baseUrl, n)));
      if (!keys.isEmpty() && !keys.contains(r.id().key())) {
        problems.add(order + ": stored under another key than the one the server saw");
      }
      if (r.state() == IntentState.COMPLETED) {
        String response = r.lastResponse() == null ? null
            : new String(r.lastResponse().body(), StandardCharsets.UTF_8);
        if (r.lastResponse() == null || r.lastResponse().status() != 201
            || !response.equals(server.responseOf(r.id().key()))) {
          problems.add(order + ": completed, but the stored response is not the server's");
        }
      } else if (acks.completed(n)) {
        problems.add(order + ": acknowledged COMPLETED but stored as " + r.state());
      }
      if (end && (r.state() != IntentState.COMPLETED || effects != 1)) {
        problems.add(order + ": ended " + r.state() + " with " + effects + " effects");
      }
      if (!r.state().isTerminal()) {
        unfinished.add(order);
      }
    }
    Set<String> listed = new HashSet<>();
    try {
      for (IntentRecord r : store.listUnfinished()) {
        listed.add(r.businessId());
      }
    } catch (RuntimeException e) {
      problems.add("listUnfinished failed: " + e);
    }
    if (!listed.equals(unfinished)) {
      problems.add("listUnfinished returned " + listed.size() + " records, expected the "
          + unfinished.size() + " unfinished ones");
    }
    if (end && server.effects() != count) {
      problems.add("the server committed " + server.effects() + " effects for " + count
          + " intents");
    }
    return problems;
  }

  /**
   * Whether {@code r} holds the intent's request: its headers and exact body, or, once it finished
   * and dropped them, the digest of that body and no header but its content coding.
   */
  private static boolean storedRequestIsTheIntents(IntentRecord r, IntentSpec spec) {
    if (r.requestDropped()) {
      return r.hasRequestBytes(spec.body()) && r.headers().keySet().stream()
          .allMatch(name -> name.equalsIgnoreCase("Content-Encoding"));
    }
    return r.headers().equals(spec.headers()) && Arrays.equals(r.body(), spec.body());
  }

  private static List<String> checkRecord(IntentStore store, IntentRecord r, IntentSpec spec) {
    List<String> problems = new ArrayList<>();
    String order = spec.businessId();
    if (!r.id().scope().equals(spec.scope()) || !r.id().operation().equals(spec.operation())
        || !r.method().equals(spec.method()) || !r.url().equals(spec.url())
        || !storedRequestIsTheIntents(r, spec) || !r.mediaType().equals(spec.mediaType())
        || !r.fingerprint().equals(spec.fingerprint())) {
      problems.add(order + ": the stored request differs from the intent's");
    }
    if (r.requestDropped() && !r.state().isTerminal()) {
      problems.add(order + ": an unfinished record lost its request");
    }
    try {
      Optional<IntentRecord> byKey = store.get(r.id());
      if (byKey.isEmpty() || !byKey.get().equals(r)) {
        problems.add(order + ": reading by key and by business id disagree");
      }
    } catch (RuntimeException e) {
      problems.add(order + ": read by key failed: " + e);
    }
    return problems;
  }
}
