package dev.oncely.android;

import static org.assertj.core.api.Assertions.assertThat;
import static org.robolectric.Shadows.shadowOf;

import android.content.Context;
import android.net.ConnectivityManager;
import android.net.Network;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentState;
import dev.oncely.client.PendingReason;
import dev.oncely.client.RetryPolicy;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;
import org.robolectric.shadows.ShadowNetwork;

/**
 * The Android wiring end to end: a real OkHttp client against MockWebServer, the SQLite store in
 * {@code noBackupFilesDir}, and network loss and return simulated through Robolectric's
 * ConnectivityManager.
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = 35, manifest = Config.NONE)
public class OncelyAndroidTest {
  private static final String BODY = "{\"amount\":1000,\"currency\":\"JPY\"}";

  private final MockWebServer server = new MockWebServer();
  private final Network wifi = ShadowNetwork.newInstance(200);
  private Context context;
  private OncelyAndroid oncely;

  @Before
  public void startServer() throws Exception {
    server.start();
    context = RuntimeEnvironment.getApplication();
  }

  @After
  public void stop() {
    if (oncely != null) {
      oncely.close();
    }
    server.close();
  }

  private static IdempotentClient.Builder clientBuilder() {
    return IdempotentClient.builder().retryPolicy(RetryPolicy.builder()
        .maxAttempts(3)
        .baseDelay(Duration.ofMillis(1))
        .maxDelay(Duration.ofMillis(10))
        .deadline(Duration.ofSeconds(30))
        .attemptTimeout(Duration.ofSeconds(10))
        .build());
  }

  private IntentSpec payment() {
    return IntentSpec.builder().operation("create-payment").scope("tenant-a")
        .post(server.url("/payments").toString()).jsonBody(BODY).build();
  }

  private void simulate(boolean available) {
    ConnectivityManager cm = context.getSystemService(ConnectivityManager.class);
    for (ConnectivityManager.NetworkCallback cb : shadowOf(cm).getNetworkCallbacks()) {
      if (available) {
        cb.onAvailable(wifi);
      } else {
        cb.onLost(cm.getActiveNetwork());
        cb.onLost(wifi);
      }
    }
  }

  @Test
  public void store_lives_in_no_backup_files_dir_and_only_the_app_can_read_it() throws Exception {
    oncely = OncelyAndroid.start(context, clientBuilder());
    File file = new File(oncely.store().path());
    assertThat(file).isEqualTo(new File(context.getNoBackupFilesDir(), OncelyAndroid.STORE_FILE));
    assertThat(Files.getPosixFilePermissions(file.getParentFile().toPath()))
        .isEqualTo(PosixFilePermissions.fromString("rwx------"));
    assertThat(Files.getPosixFilePermissions(file.toPath()))
        .doesNotContain(PosixFilePermission.GROUP_READ, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);
  }

  @Test
  public void offline_pauses_attempts_and_the_network_return_completes_the_intent()
      throws Exception {
    server.enqueue(new MockResponse.Builder().code(201).body("{\"id\":\"p-1\"}").build());
    oncely = OncelyAndroid.start(context, clientBuilder());
    simulate(false);
    assertThat(oncely.networkGate().isOpen()).isFalse();
    IntentSpec spec = payment();

    CompletableFuture<IntentOutcome> outcome = oncely.client().submit(spec);

    assertThat(oncely.networkGate().awaitWaiting(1, 10, TimeUnit.SECONDS)).isTrue();
    assertThat(server.getRequestCount()).isZero();
    assertThat(outcome).isNotDone();
    assertThat(oncely.store().get(spec.id())).get()
        .extracting(r -> r.state().isTerminal()).isEqualTo(false);

    simulate(true);

    IntentOutcome done = outcome.get(20, TimeUnit.SECONDS);
    assertThat(done).isInstanceOf(IntentOutcome.Completed.class);
    assertThat(((IntentOutcome.Completed) done).response().status()).isEqualTo(201);
    assertThat(server.getRequestCount()).isEqualTo(1);
    RecordedRequest sent = server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(sent.getHeaders().get("Idempotency-Key")).isEqualTo("\"" + spec.key() + "\"");
    assertThat(oncely.store().get(spec.id())).get()
        .extracting(r -> r.state()).isEqualTo(IntentState.COMPLETED);
  }

  @Test
  public void app_restart_resumes_a_pending_intent_with_the_same_key() throws Exception {
    oncely = OncelyAndroid.start(context, clientBuilder());
    simulate(false);
    IntentSpec spec = payment();
    CompletableFuture<IntentOutcome> firstRun = oncely.client().submit(spec);
    assertThat(oncely.networkGate().awaitWaiting(1, 10, TimeUnit.SECONDS)).isTrue();
    oncely.close();
    IntentOutcome interrupted = firstRun.get(10, TimeUnit.SECONDS);
    assertThat(interrupted).isInstanceOf(IntentOutcome.Pending.class);
    assertThat(((IntentOutcome.Pending) interrupted).reason()).isEqualTo(PendingReason.INTERRUPTED);
    assertThat(server.getRequestCount()).isZero();

    server.enqueue(new MockResponse.Builder().code(201).body("{\"id\":\"p-1\"}").build());
    oncely = OncelyAndroid.start(context, clientBuilder());
    simulate(true);

    List<IntentOutcome> resumed = oncely.resumedOnStart().get(20, TimeUnit.SECONDS);
    assertThat(resumed).singleElement().isInstanceOf(IntentOutcome.Completed.class);
    RecordedRequest sent = server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(sent.getHeaders().get("Idempotency-Key")).isEqualTo("\"" + spec.key() + "\"");
    assertThat(sent.getBody().utf8()).isEqualTo(BODY);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }
}
