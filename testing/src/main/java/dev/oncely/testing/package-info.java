/**
 * A test kit for code that must cause exactly one business effect per intent over an unreliable
 * network: {@link dev.oncely.testing.IdempotentServer} (a MockWebServer dispatcher that speaks the
 * server side of the idempotency-key contract, configurable in the ways real servers differ),
 * {@link dev.oncely.testing.Fault} and {@link dev.oncely.testing.FaultScript} (named faults by
 * request number, rule or seeded probability), {@link dev.oncely.testing.EffectLedger} (the
 * effects committed) and {@link dev.oncely.testing.RequestLog} (every request received). It does
 * not depend on the Oncely client; use it in test scope. See {@code docs/testing.md}.
 *
 * <p>Every type in this package is null-marked (JSpecify): a parameter or return value is never
 * null unless it is annotated {@code @Nullable}.
 */
@NullMarked
package dev.oncely.testing;

import org.jspecify.annotations.NullMarked;
