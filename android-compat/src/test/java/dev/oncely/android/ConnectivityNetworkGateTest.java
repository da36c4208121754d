package dev.oncely.android;

import static org.assertj.core.api.Assertions.assertThat;
import static org.robolectric.Shadows.shadowOf;

import android.content.Context;
import android.net.ConnectivityManager;
import android.net.Network;
import android.os.Handler;
import android.os.HandlerThread;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;
import org.robolectric.shadows.ShadowNetwork;

@RunWith(RobolectricTestRunner.class)
@Config(sdk = 35, manifest = Config.NONE)
public class ConnectivityNetworkGateTest {
  private final Network wifi = ShadowNetwork.newInstance(100);
  private final Network cellular = ShadowNetwork.newInstance(101);
  private final List<Runnable> reconnects = new ArrayList<>();
  private final Executor recordReconnect = reconnects::add;
  private ConnectivityManager connectivity;
  private ConnectivityNetworkGate gate;

  @Before
  public void registerGate() {
    Context context = RuntimeEnvironment.getApplication();
    connectivity = context.getSystemService(ConnectivityManager.class);
    gate = ConnectivityNetworkGate.builder(context)
        .onReconnect(recordReconnect, () -> { })
        .register();
  }

  @After
  public void closeGate() {
    gate.close();
  }

  private void simulate(boolean available, Network network) {
    for (ConnectivityManager.NetworkCallback cb : shadowOf(connectivity).getNetworkCallbacks()) {
      if (available) {
        cb.onAvailable(network);
      } else {
        cb.onLost(network);
      }
    }
  }

  @Test
  public void losing_the_network_closes_the_gate_and_its_return_runs_waiting_actions_once() {
    simulate(true, wifi);
    simulate(false, wifi);
    assertThat(gate.isOpen()).isFalse();
    AtomicInteger ran = new AtomicInteger();
    gate.whenOpen(ran::incrementAndGet);
    assertThat(ran).hasValue(0);

    simulate(true, wifi);

    assertThat(gate.isOpen()).isTrue();
    assertThat(ran).hasValue(1);
    simulate(true, cellular);
    assertThat(ran).hasValue(1);
    assertThat(reconnects).hasSize(1);
  }

  @Test
  public void open_gate_runs_actions_at_once_on_the_calling_thread() {
    simulate(true, wifi);
    List<Thread> threads = new ArrayList<>();
    gate.whenOpen(() -> threads.add(Thread.currentThread()));
    assertThat(threads).containsExactly(Thread.currentThread());
  }

  @Test
  public void losing_a_network_that_is_no_longer_the_default_keeps_the_gate_open() {
    simulate(true, wifi);
    simulate(true, cellular);
    simulate(false, wifi);
    assertThat(gate.isOpen()).isTrue();
    simulate(false, cellular);
    assertThat(gate.isOpen()).isFalse();
  }

  @Test
  public void a_failing_action_does_not_stop_the_others() {
    simulate(false, connectivity.getActiveNetwork());
    simulate(true, wifi);
    simulate(false, wifi);
    AtomicInteger ran = new AtomicInteger();
    gate.whenOpen(() -> {
      throw new IllegalStateException("listener bug");
    });
    gate.whenOpen(ran::incrementAndGet);
    simulate(true, wifi);
    assertThat(ran).hasValue(1);
  }

  @Test
  public void closed_gate_unregisters_its_callback() {
    assertThat(shadowOf(connectivity).getNetworkCallbacks()).hasSize(1);
    gate.close();
    gate.close();
    assertThat(shadowOf(connectivity).getNetworkCallbacks()).isEmpty();
  }

  @Test
  public void below_api_26_the_system_callback_is_posted_to_the_handler() throws Exception {
    HandlerThread thread = new HandlerThread("gate-test");
    thread.start();
    try {
      Handler handler = new Handler(thread.getLooper());
      List<String> seen = new ArrayList<>();
      ConnectivityManager.NetworkCallback target = new ConnectivityManager.NetworkCallback() {
        @Override
        public void onAvailable(Network network) {
          seen.add("available on " + Thread.currentThread().getName());
        }

        @Override
        public void onLost(Network network) {
          seen.add("lost on " + Thread.currentThread().getName());
        }
      };

      ConnectivityManager.NetworkCallback registered =
          ConnectivityNetworkGate.register(connectivity, target, handler, 24);

      assertThat(registered).isNotSameAs(target);
      assertThat(shadowOf(connectivity).getNetworkCallbacks()).contains(registered);
      registered.onAvailable(wifi);
      registered.onLost(wifi);
      shadowOf(thread.getLooper()).idle();
      assertThat(seen).containsExactly("available on gate-test", "lost on gate-test");
      connectivity.unregisterNetworkCallback(registered);
    } finally {
      thread.quit();
    }
  }

  @Test
  public void from_api_26_the_callback_is_registered_with_the_handler_itself() {
    Handler handler = new Handler(android.os.Looper.getMainLooper());
    ConnectivityManager.NetworkCallback target = new ConnectivityManager.NetworkCallback();

    assertThat(ConnectivityNetworkGate.register(connectivity, target, handler, 26))
        .isSameAs(target);
    assertThat(shadowOf(connectivity).getNetworkCallbacks()).contains(target);
    connectivity.unregisterNetworkCallback(target);
  }
}
