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
 * What a Standard Webhooks sender delivers in a kill test, seeded: {@code events} good events
 * (a credit to a customer each), each delivered once in a shuffled order; 20% of them delivered a
 * second time somewhere in that order (before or after the first); 10% redelivered once their
 * first delivery was answered {@code 2xx} (the sender missed the answer, or an operator replayed
 * it); and deliveries that must be refused, some carrying a good event's id: signed with a wrong
 * secret, a body altered after signing, a timestamp 10 minutes old or ahead, no signature.
 *
 * <p>Every attempt is signed when it is sent, with the time then, as a sender signs each retry:
 * a good delivery retried for minutes while receivers restart stays within the tolerance.
 */
final class WebhookPlan {
  /** How far the stale and future timestamps are from now: twice the default tolerance. */
  static final Duration SKEW = Duration.ofMinutes(10);

  private final String secret;
  private final byte[] key;
  private final byte[] wrongKey;
  private final List<Event> good = new ArrayList<>();
  private final List<Event> neverGood = new ArrayList<>();
  private final List<Delivery> planned = new ArrayList<>();
  private final Set<String> redeliverAfterAnswer = new HashSet<>();

  /** One event: its id, and the credit its body asks for. */
  record Event(String id, String customer, long amount, byte[] body) {}

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
    /** No {@code webhook-signature} header. */
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
    byte[] k = new byte[32];
    random.nextBytes(k);
    this.key = k;
    this.secret = "whsec_" + Base64.getEncoder().encodeToString(k);
    this.wrongKey = new byte[32];
    random.nextBytes(wrongKey);
    for (int i = 0; i < events; i++) {
      good.add(event(random, "msg_" + i + "_"));
    }
    List<Event> shuffled = new ArrayList<>(good);
    for (Event e : good) {
      planned.add(new Delivery(Kind.ORIGINAL, e));
    }
    Collections.shuffle(shuffled, random);
    int duplicates = share(events, 20);
    for (int i = 0; i < duplicates; i++) {
      planned.add(new Delivery(Kind.DUPLICATE, shuffled.get(i)));
    }
    Collections.shuffle(shuffled, random);
    for (int i = 0; i < share(events, 10); i++) {
      redeliverAfterAnswer.add(shuffled.get(i).id());
    }
    // Refused deliveries: about half carry a good event's id (a forger replaying a real id, a
    // stale copy of a real delivery), the others ids that are never delivered correctly.
    Collections.shuffle(shuffled, random);
    int g = 0;
    for (int i = 0; i < share(events, 3); i++) {
      planned.add(new Delivery(Kind.WRONG_SECRET, i % 2 == 0 ? shuffled.get(g++)
          : forged(random)));
    }
    for (int i = 0; i < share(events, 2); i++) {
      planned.add(new Delivery(Kind.ALTERED_BODY, shuffled.get(g++)));
    }
    for (int i = 0; i < share(events, 2); i++) {
      planned.add(new Delivery(Kind.STALE, i % 2 == 0 ? shuffled.get(g++) : forged(random)));
    }
    for (int i = 0; i < share(events, 1); i++) {
      planned.add(new Delivery(Kind.FUTURE, forged(random)));
    }
    for (int i = 0; i < share(events, 1); i++) {
      planned.add(new Delivery(Kind.UNSIGNED, forged(random)));
    }
    Collections.shuffle(planned, random);
  }

  private static int share(int events, int percent) {
    return Math.max(1, events * percent / 100);
  }

  private Event forged(Random random) {
    Event e = event(random, "msg_x" + neverGood.size() + "_");
    neverGood.add(e);
    return e;
  }

  private static Event event(Random random, String prefix) {
    byte[] tail = new byte[8];
    random.nextBytes(tail);
    String id = prefix + HexFormat.of().formatHex(tail);
    String customer = "c-" + random.nextInt(50);
    long amount = 1 + random.nextInt(10_000);
    String body = "{\"type\":\"credit.granted\",\"timestamp\":\"2026-06-01T12:00:00Z\","
        + "\"data\":{\"customer\":\"" + customer + "\",\"amount\":" + amount + "}}";
    return new Event(id, customer, amount, body.getBytes(UTF_8));
  }

  /** The secret the receivers verify with ({@code whsec_} and base64). */
  String secret() {
    return secret;
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
    return redeliverAfterAnswer.contains(event.id());
  }

  /** How many events are redelivered after the answer. */
  int redeliveries() {
    return redeliverAfterAnswer.size();
  }

  /** {@code d} signed (or mis-signed, as its kind says) at {@code now}. */
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
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("webhook-id", e.id());
    headers.put("webhook-timestamp", timestamp);
    if (d.kind() != Kind.UNSIGNED) {
      byte[] signingKey = d.kind() == Kind.WRONG_SECRET ? wrongKey : key;
      headers.put("webhook-signature", "v1," + hmac(signingKey,
          (e.id() + "." + timestamp + "." + new String(e.body(), UTF_8)).getBytes(UTF_8)));
    }
    return new Signed(headers, body);
  }

  private static String hmac(byte[] key, byte[] content) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return Base64.getEncoder().encodeToString(mac.doFinal(content));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
