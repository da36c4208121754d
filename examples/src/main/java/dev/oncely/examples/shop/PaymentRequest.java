package dev.oncely.examples.shop;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Currency;
import java.util.Locale;

/**
 * The body of {@code POST /payments}, checked by the shop's business rules: a JSON object with a
 * positive integer {@code amount} (minor units, at most {@value #MAX_AMOUNT}), an ISO 4217 {@code
 * currency} (any case; kept lower-case, as Stripe writes it), and optional {@code order} and
 * {@code customer} strings of at most {@value #MAX_TEXT} characters. Other members are ignored.
 * Immutable.
 *
 * @param amount the amount in minor units
 * @param currency the lower-case ISO 4217 code
 * @param order the merchant's order reference, or null
 * @param customer the customer reference, or null
 */
record PaymentRequest(long amount, String currency, String order, String customer) {
  /** The largest amount accepted. */
  static final long MAX_AMOUNT = 99_999_999L;
  /** The longest order or customer reference accepted. */
  static final int MAX_TEXT = 200;

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  /** What {@link #parse} found: a valid request or the business refusal. */
  sealed interface Parsed permits Valid, Invalid {}

  /** A request the shop accepts. */
  record Valid(PaymentRequest request) implements Parsed {}

  /**
   * A request the shop refuses: a business {@code 400}, stored and replayed like a success.
   *
   * @param param the member at fault
   * @param message what is wrong, never echoing the value
   */
  record Invalid(String param, String message) implements Parsed {}

  /** Checks {@code body} by the rules above. */
  static Parsed parse(byte[] body) {
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (IOException e) {
      return new Invalid("body", "the body must be a JSON object");
    }
    if (root == null || !root.isObject()) {
      return new Invalid("body", "the body must be a JSON object");
    }
    JsonNode amount = root.get("amount");
    if (amount == null || !amount.isIntegralNumber() || !amount.canConvertToLong()
        || amount.longValue() <= 0 || amount.longValue() > MAX_AMOUNT) {
      return new Invalid("amount", "amount must be a positive integer of at most " + MAX_AMOUNT
          + " (minor units)");
    }
    String currency = currency(root.get("currency"));
    if (currency == null) {
      return new Invalid("currency", "currency must be an ISO 4217 code such as usd or jpy");
    }
    JsonNode order = root.get("order");
    if (!optionalText(order)) {
      return new Invalid("order", "order must be a string of 1 to " + MAX_TEXT + " characters");
    }
    JsonNode customer = root.get("customer");
    if (!optionalText(customer)) {
      return new Invalid("customer", "customer must be a string of 1 to " + MAX_TEXT
          + " characters");
    }
    return new Valid(new PaymentRequest(amount.longValue(), currency,
        order == null ? null : order.textValue(), customer == null ? null : customer.textValue()));
  }

  private static String currency(JsonNode node) {
    if (node == null || !node.isTextual() || !node.textValue().matches("[A-Za-z]{3}")) {
      return null;
    }
    try {
      return Currency.getInstance(node.textValue().toUpperCase(Locale.ROOT)).getCurrencyCode()
          .toLowerCase(Locale.ROOT);
    } catch (IllegalArgumentException unknown) {
      return null;
    }
  }

  private static boolean optionalText(JsonNode node) {
    if (node == null) {
      return true;
    }
    if (!node.isTextual()) {
      return false;
    }
    String t = node.textValue();
    return !t.isEmpty() && t.length() <= MAX_TEXT && t.chars().noneMatch(Character::isISOControl);
  }
}
