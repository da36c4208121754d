package dev.oncely.examples.webhookkill;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * What the senders deliver in a kill test, seeded: {@code events} good events (a credit to a
 * customer each) from three sources, each signed by its own scheme ({@value #STANDARD}: Standard
 * Webhooks; {@value #STRIPE}: Stripe's {@code Stripe-Signature}, the event id in the body; {@value
 * #GITHUB}: GitHub's {@code X-Hub-Signature-256}, the id in {@code X-GitHub-Delivery}); each event
 * delivered once in a shuffled order; 20% of them delivered a second time somewhere in that order
 * (before or after the first); 10% redelivered once their first delivery was answered {@code 2xx}
 * (the sender missed the answer, or an operator replayed it); and deliveries that must be refused,
 * about half of them carrying a good event's id: signed with a wrong secret, a body altered after
 * signing, a signed timestamp 10 minutes old or ahead (the schemes that sign one), no signature.
 *
 * <p>Every attempt is signed when it is sent, with the time then, as a sender signs each retry:
 * a good delivery retried for minutes while receivers restart stays within the tolerance.
 */
final class WebhookPlan {
  /** The Standard Webhooks source. */
  static final String STANDARD = "standard";
  /** The Stripe source. */
  static final String STRIPE = "stripe";
  /** The GitHub source. */
  static final String GITHUB = "github";
  /** Every source, in the order events are spread over them. */
  static final List<String> SOURCES = List.of(STANDARD, STRIPE, GITHUB);
  /** How far the stale and future timestamps are from now: twice the default tolerances. */
  static final Duration SKEW = Duration.ofMinutes(10);

  private final Map<String, String> secrets = new LinkedHashMap<>();
  private final Map<String, String> wrongSecrets = new LinkedHashMap<>();
  private final List<Event> good = new ArrayList<>();
  private final List<Event> neverGood = new ArrayList<>();
  private final List<Delivery> planned = new ArrayList<>();
  private final Set<Event> redeliverAfterAnswer = new HashSet<>();

  /** One event: its source and id, and the credit its body asks for. */
  record Event(String source, String id, String customer, long amount, byte[] body) {}

  /** What a delivery is, and what its answer must be. */
  enum Kind {
    /** An event's first delivery in the plan. */
    ORIGINAL(200),
    /** A second delivery of an event, somewhere in the shuffled order. */
    DUPLICATE(200),
    /** A delivery sent once the event's original was answered {@code 2xx}. */
    REDELIVERY(200),
    /** Signed with a secret the receiver does not know. */
    WRONG_SECRET(401),
    /** Signed, then its body changed (a larger amount). */
    ALTERED_BODY(401),
    /** Correctly signed with a timestamp {@link #SKEW} old. */
    STALE(401),
    /** Correctly signed with a timestamp {@link #SKEW} ahead. */
    FUTURE(401),
    /** No signature header. */
    UNSIGNED(400);

    final int expected;

    Kind(int expected) {
      this.expected = expected;
    }

    /** Whether deliveries of this kind carry a good event and must be stored. */
    boolean good() {
      return expected == 200;
    }
  }

  /** One delivery: what it is and the event it names. */
  record Delivery(Kind kind, Event event) {}

  /** One attempt as sent: headers and body. */
  record Signed(Map<String, String> headers, byte[] body) {}

  WebhookPlan(int events, long seed) {
    Random random = new Random(seed);
    for (String source : SOURCES) {
      secrets.put(source, secret(random, source));
      wrongSecrets.put(source, secret(random, source));
    }
    for (int i = 0; i < events; i++) {
      Event e = event(random, SOURCES.get(i % SOURCES.size()), "" + i);
      good.add(e);
      planned.add(new Delivery(Kind.ORIGINAL, e));
    }
    List<Event> shuffled = new ArrayList<>(good);
    Collections.shuffle(shuffled, random);
    for (int i = 0; i < share(events, 20); i++) {
      planned.add(new Delivery(Kind.DUPLICATE, shuffled.get(i)));
    }
    Collections.shuffle(shuffled, random);
    redeliverAfterAnswer.addAll(shuffled.subList(0, share(events, 10)));
    // Refused deliveries: about half carry a good event's id (a forger replaying a real id, a
    // stale copy of a real delivery), the others ids that are never delivered correctly. Stale
    // and future ones only for the schemes that sign a timestamp.
    Collections.shuffle(shuffled, random);
    List<Event> timed = shuffled.stream().filter(e -> !e.source().equals(GITHUB)).toList();
    int g = 0;
    int t = 0;
    for (int i = 0; i < share(events, 3); i++) {
      planned.add(new Delivery(Kind.WRONG_SECRET, i % 2 == 0 ? shuffled.get(g++)
          : forged(random, SOURCES.get(i % SOURCES.size()))));
    }
    for (int i = 0; i < share(events, 2); i++) {
      planned.add(new Delivery(Kind.ALTERED_BODY, shuffled.get(g++)));
    }
    for (int i = 0; i < share(events, 2); i++) {
      planned.add(new Delivery(Kind.STALE, i % 2 == 0 ? timed.get(t++)
          : forged(random, i % 4 == 1 ? STANDARD : STRIPE)));
    }
    for (int i = 0; i < share(events, 1); i++) {
      planned.add(new Delivery(Kind.FUTURE, forged(random, i % 2 == 0 ? STANDARD : STRIPE)));
    }
    for (int i = 0; i < share(events, 1); i++) {
      planned.add(new Delivery(Kind.UNSIGNED,
          forged(random, SOURCES.get(i % SOURCES.size()))));
    }
    Collections.shuffle(planned, random);
  }

  private static int share(int events, int percent) {
    return Math.max(1, events * percent / 100);
  }

  private static String secret(Random random, String source) {
    byte[] bytes = new byte[24];
    random.nextBytes(bytes);
    return switch (source) {
      case STANDARD -> "whsec_" + Base64.getEncoder().encodeToString(bytes);
      case STRIPE -> "whsec_" + HexFormat.of().formatHex(bytes);
      default -> HexFormat.of().formatHex(bytes);
    };
  }

  private Event forged(Random random, String source) {
    Event e = event(random, source, "x" + neverGood.size());
    neverGood.add(e);
    return e;
  }

  private static Event event(Random random, String source, String serial) {
    byte[] tail = new byte[8];
    random.nextBytes(tail);
    String hex = HexFormat.of().formatHex(tail);
    String id = switch (source) {
      case STANDARD -> "msg_" + serial + "_" + hex;
      case STRIPE -> "evt_" + serial + "_" + hex;
      default -> "0f1e2d3c-" + serial + "-" + hex; // GitHub's delivery ids are GUIDs
    };
    String customer = "c-" + random.nextInt(50);
    long amount = 1 + random.nextInt(10_000);
    String data = "\"data\":{\"customer\":\"" + customer + "\",\"amount\":" + amount + "}";
    String body = switch (source) {
      case STANDARD -> "{\"type\":\"credit.granted\",\"timestamp\":\"2026-06-01T12:00:00Z\","
          + data + "}";
      case STRIPE -> "{\"id\":\"" + id + "\",\"object\":\"event\",\"type\":\"credit.granted\","
          + data + "}";
      default -> "{\"action\":\"granted\"," + data + "}";
    };
    return new Event(source, id, customer, amount, body.getBytes(UTF_8));
  }

  /** The secret each source's receiver verifies with, by source. */
  Map<String, String> secrets() {
    return secrets;
  }

  /** The good events, in the order they were made. */
  List<Event> good() {
    return good;
  }

  /** Events only ever delivered in ways that must be refused. */
  List<Event> neverGood() {
    return neverGood;
  }

  /** The deliveries sent up front, shuffled. */
  List<Delivery> planned() {
    return planned;
  }

  /** Whether {@code event} is redelivered once its original was answered {@code 2xx}. */
  boolean redeliveredAfterAnswer(Event event) {
    return redeliverAfterAnswer.contains(event);
  }

  /** How many events are redelivered after the answer. */
  int redeliveries() {
    return redeliverAfterAnswer.size();
  }

  /** {@code d} signed (or mis-signed, as its kind says) by its source's scheme at {@code now}. */
  Signed sign(Delivery d, Instant now) {
    Event e = d.event();
    Instant at = switch (d.kind()) {
      case STALE -> now.minus(SKEW);
      case FUTURE -> now.plus(SKEW);
      default -> now;
    };
    String timestamp = Long.toString(at.getEpochSecond());
    byte[] body = e.body();
    if (d.kind() == Kind.ALTERED_BODY) {
      body = new String(body, UTF_8).replace("\"amount\":" + e.amount(),
          "\"amount\":" + e.amount() * 100).getBytes(UTF_8);
    }
    String secret = (d.kind() == Kind.WRONG_SECRET ? wrongSecrets : secrets).get(e.source());
    String signed = new String(e.body(), UTF_8);
    boolean unsigned = d.kind() == Kind.UNSIGNED;
    Map<String, String> headers = new LinkedHashMap<>();
    switch (e.source()) {
      case STANDARD -> {
        headers.put("webhook-id", e.id());
        headers.put("webhook-timestamp", timestamp);
        byte[] key = Base64.getDecoder().decode(secret.substring("whsec_".length()));
        if (!unsigned) {
          headers.put("webhook-signature", "v1," + Base64.getEncoder().encodeToString(
              hmac(key, e.id() + "." + timestamp + "." + signed)));
        }
      }
      case STRIPE -> {
        if (!unsigned) {
          headers.put("Stripe-Signature", "t=" + timestamp + ",v1=" + HexFormat.of().formatHex(
              hmac(secret.getBytes(UTF_8), timestamp + "." + signed)));
        }
      }
      default -> {
        headers.put("X-GitHub-Delivery", e.id());
        headers.put("X-GitHub-Event", "credit");
        if (!unsigned) {
          headers.put("X-Hub-Signature-256", "sha256=" + HexFormat.of().formatHex(
              hmac(secret.getBytes(UTF_8), signed)));
        }
      }
    }
    return new Signed(headers, body);
  }

  private static byte[] hmac(byte[] key, String content) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(content.getBytes(UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
