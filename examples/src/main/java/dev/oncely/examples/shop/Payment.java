package dev.oncely.examples.shop;

import java.time.Instant;
import java.util.Objects;

/**
 * One payment the shop made: the business effect. Immutable.
 *
 * @param id the payment's id ({@code pay_} and 24 hex digits)
 * @param receipt the status token of the receipt whose request made it: one payment per receipt
 * @param keyHash the idempotency key's safe hash ({@code IntentId.safeKey()}), never the key
 * @param amount the amount in minor units
 * @param currency the lower-case ISO 4217 code
 * @param order the order reference, or null
 * @param customer the customer reference, or null
 * @param providerCharge the provider's charge id, or null when no provider is configured
 * @param createdAt when it was committed, to the millisecond
 */
record Payment(String id, String receipt, String keyHash, long amount, String currency,
    String order, String customer, String providerCharge, Instant createdAt) {
  /** Checks the required components. */
  Payment {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(receipt, "receipt");
    Objects.requireNonNull(keyHash, "keyHash");
    Objects.requireNonNull(currency, "currency");
    Objects.requireNonNull(createdAt, "createdAt");
  }

  /** Whether this payment is the one {@code request} asks for. */
  boolean pays(PaymentRequest request) {
    return amount == request.amount() && currency.equals(request.currency())
        && Objects.equals(order, request.order()) && Objects.equals(customer, request.customer());
  }

  /** The path of its resource, also its {@code Location}. */
  String location() {
    return "/payments/" + id;
  }
}
