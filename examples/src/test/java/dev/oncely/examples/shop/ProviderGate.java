package dev.oncely.examples.shop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncely.testing.IdempotentServer;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;

/**
 * The payment provider of the kill tests: the testing kit's idempotent server (one effect per
 * order in its ledger, repeats of a key replayed), with a gate that holds the answer to one
 * chosen order's charge after the provider committed it, until the test says so. The test kills
 * the shop while the gate holds: a SIGKILL during the shop's outbound call, with the charge made
 * and its answer never read.
 */
final class ProviderGate extends Dispatcher {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final IdempotentServer kit;
  private volatile String heldOrder;
  private volatile CountDownLatch charged = new CountDownLatch(1);
  private volatile CountDownLatch release = new CountDownLatch(0);

  ProviderGate(IdempotentServer kit) {
    this.kit = kit;
  }

  /** Holds the answer to the next charge of {@code order} until {@link #release()}. */
  void hold(String order) {
    charged = new CountDownLatch(1);
    release = new CountDownLatch(1);
    heldOrder = order;
  }

  /** Waits until the held order's charge was made at the provider. */
  boolean awaitCharged() throws InterruptedException {
    return charged.await(ShopProcess.PATIENCE.toSeconds(), TimeUnit.SECONDS);
  }

  /** Lets the held answer go (to a connection that may be dead by then). */
  void release() {
    heldOrder = null;
    release.countDown();
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
    MockResponse answer = kit.dispatch(request);
    String held = heldOrder;
    if (held != null && held.equals(orderOf(request))) {
      charged.countDown();
      release.await(ShopProcess.PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }
    return answer;
  }

  @Override
  public void close() {
    release.countDown();
    kit.close();
  }

  private static String orderOf(RecordedRequest request) {
    try {
      JsonNode order = request.getBody() == null ? null
          : JSON.readTree(request.getBody().toByteArray()).get("order");
      return order == null ? null : order.asText();
    } catch (IOException e) {
      return null;
    }
  }
}
