package dev.oncely.examples.shop;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.ForwardingIntentStore;
import dev.oncely.examples.cli.ShopCommand;
import dev.oncely.persistence.MapDbIntentStore;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The shop in a child JVM for the kill tests: the {@code shop} command's options, the shipped
 * {@link Shop}, plus the test-only crash seam, which only this class reads: the system property
 * {@value #HALT} names a point where the JVM halts ({@link Runtime#halt}, exit status {@value
 * #HALT_STATUS}, no shutdown hook, no flush: a SIGKILL at a chosen instant).
 *
 * <ul>
 *   <li>{@code STEP@order}: at {@link ShopStep} {@code STEP} of the payment of {@code order};
 *   <li>{@code STEP#n}: at the {@code n}-th time any payment reaches {@code STEP};
 *   <li>{@code RESERVE@safeKey} / {@code RESERVED@safeKey}: in the receipt store's insert of the
 *       key whose safe hash is {@code safeKey}, before the insert (the reservation never commits)
 *       or right after it committed (the handler never starts); {@code RESERVE#n} /
 *       {@code RESERVED#n}: at the {@code n}-th insert.
 * </ul>
 *
 * It prints {@code LISTENING <base url>} once the shop listens and {@code STEP <step> <order>} at
 * every step (before halting there), so the parent can kill it after a given step without
 * polling.
 */
public final class ShopKillChild {
  /** The property naming the halt point. */
  static final String HALT = "oncely.test.shopHalt";
  /** The exit status of a halt, the same as a process killed by SIGKILL. */
  static final int HALT_STATUS = 137;

  private ShopKillChild() {}

  public static void main(String[] args) throws Exception {
    ShopSettings settings = ShopCommand.configure(Arrays.asList(args)).build();
    HaltPoint halt = HaltPoint.parse(System.getProperty(HALT, ""));
    PrintStream out = System.out;
    IntentStore receipts = new HaltingReceipts(MapDbIntentStore.open(settings.store()), halt, out);
    Shop shop = Shop.builder(settings)
        .receiptStore(receipts)
        .probe((step, order) -> {
          out.println("STEP " + step + " " + order);
          out.flush();
          if (halt.matches(step.name(), order)) {
            Runtime.getRuntime().halt(HALT_STATUS);
          }
        })
        .build()
        .start();
    out.println("LISTENING " + shop.baseUrl());
    out.flush();
    new CountDownLatch(1).await();
  }

  /** Where to halt: a point name and either a subject (order or safe key) or an occurrence. */
  private static final class HaltPoint {
    private final String point;
    private final String subject;
    private final int occurrence;
    private final AtomicInteger seen = new AtomicInteger();

    private HaltPoint(String point, String subject, int occurrence) {
      this.point = point;
      this.subject = subject;
      this.occurrence = occurrence;
    }

    static HaltPoint parse(String spec) {
      if (spec.isBlank()) {
        return new HaltPoint("", null, 0);
      }
      int at = spec.indexOf('@');
      if (at > 0) {
        return new HaltPoint(spec.substring(0, at), spec.substring(at + 1), 0);
      }
      int hash = spec.indexOf('#');
      return new HaltPoint(spec.substring(0, hash), null,
          Integer.parseInt(spec.substring(hash + 1)));
    }

    boolean matches(String reached, String subjectReached) {
      if (!point.equals(reached)) {
        return false;
      }
      return subject != null ? subject.equals(subjectReached)
          : seen.incrementAndGet() == occurrence;
    }
  }

  /** The receipt store with the {@code RESERVE} and {@code RESERVED} halt points in its insert. */
  private static final class HaltingReceipts extends ForwardingIntentStore {
    private final HaltPoint halt;
    private final PrintStream out;

    HaltingReceipts(IntentStore delegate, HaltPoint halt, PrintStream out) {
      super(delegate);
      this.halt = halt;
      this.out = out;
    }

    @Override
    public void create(IntentRecord record) {
      String key = record.id().safeKey();
      out.println("STEP RESERVE " + key);
      out.flush();
      if (halt.matches("RESERVE", key)) {
        Runtime.getRuntime().halt(HALT_STATUS);
      }
      super.create(record);
      out.println("STEP RESERVED " + key);
      out.flush();
      if (halt.matches("RESERVED", key)) {
        Runtime.getRuntime().halt(HALT_STATUS);
      }
    }
  }
}
