package dev.oncely.android;

import static org.assertj.core.api.Assertions.assertThat;

import android.app.job.JobInfo;
import android.app.job.JobScheduler;
import android.content.Context;
import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentTag;
import dev.oncely.client.RetryPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;

/**
 * The persisted JobScheduler job follows the store: scheduled for the earliest unfinished intent
 * with a network constraint, cancelled when none is left. Checked against Robolectric's shadow
 * JobScheduler, which keeps the jobs the framework API schedules.
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = 35, manifest = Config.NONE)
public class BackgroundResumeTest {
  private final MockWebServer server = new MockWebServer();
  private Context context;
  private JobScheduler jobs;
  private OncelyAndroid oncely;

  @Before
  public void start() throws Exception {
    server.start();
    context = RuntimeEnvironment.getApplication();
    jobs = context.getSystemService(JobScheduler.class);
  }

  @After
  public void stop() {
    if (oncely != null) {
      oncely.close();
    }
    server.close();
  }

  private static IdempotentClient.Builder oneAttempt() {
    return IdempotentClient.builder().retryPolicy(RetryPolicy.builder()
        .maxAttempts(1)
        .baseDelay(Duration.ofMillis(200))
        .maxDelay(Duration.ofMillis(200))
        .attemptTimeout(Duration.ofSeconds(10))
        .build());
  }

  private IntentSpec payment() {
    return IntentSpec.builder().operation("create-payment").scope("tenant-a")
        .post(server.url("/payments").toString()).jsonBody("{\"amount\":1000}").build();
  }

  /** The job once the reschedules the store writes so far asked for have run. */
  private JobInfo job() throws Exception {
    oncely.backgroundIdle().get(20, TimeUnit.SECONDS);
    return jobs.getPendingJob(OncelyResumeJobService.JOB_ID);
  }

  @Test
  public void nothing_unfinished_schedules_no_job() throws Exception {
    oncely = OncelyAndroid.start(context, oneAttempt());
    assertThat(oncely.resumedOnStart().get(20, TimeUnit.SECONDS)).isEmpty();

    assertThat(jobs.getPendingJob(OncelyResumeJobService.JOB_ID)).isNull();
  }

  @Test
  public void an_unfinished_intent_schedules_a_persisted_network_job_for_its_next_attempt()
      throws Exception {
    server.enqueue(new MockResponse.Builder().code(503).build());
    oncely = OncelyAndroid.start(context, oneAttempt());
    oncely.resumedOnStart().get(20, TimeUnit.SECONDS);
    Instant before = Instant.now();

    IntentOutcome outcome = oncely.client().execute(payment());

    assertThat(outcome).isInstanceOf(IntentOutcome.Pending.class);
    Instant due = ((IntentOutcome.Pending) outcome).checkAgainAt();
    long untilDue = Duration.between(before, due).toMillis();
    // Created IN_FLIGHT first (due a grace period later), then PENDING: the job follows the last.
    JobInfo job = job();
    assertThat(job).isNotNull();
    assertThat(job.isPersisted()).isTrue();
    assertThat(job.getNetworkType()).isEqualTo(JobInfo.NETWORK_TYPE_ANY);
    assertThat(job.getService().getClassName()).isEqualTo(OncelyResumeJobService.class.getName());
    assertThat(job.getMinLatencyMillis()).isBetween(0L, untilDue);
  }

  @Test
  public void the_job_is_cancelled_once_the_background_resume_finishes_every_intent()
      throws Exception {
    server.enqueue(new MockResponse.Builder().code(503).build());
    oncely = OncelyAndroid.start(context, oneAttempt());
    oncely.resumedOnStart().get(20, TimeUnit.SECONDS);
    oncely.client().execute(payment());
    assertThat(job()).isNotNull();
    server.enqueue(new MockResponse.Builder().code(201).body("{\"id\":\"p-1\"}").build());

    List<IntentOutcome> resumed = oncely.resumeInBackground().get(20, TimeUnit.SECONDS);

    assertThat(resumed).singleElement().isInstanceOf(IntentOutcome.Completed.class);
    assertThat(jobs.getPendingJob(OncelyResumeJobService.JOB_ID)).isNull();
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  public void a_tagged_call_through_the_interceptor_schedules_the_job_and_resumes_in_the_background()
      throws Exception {
    server.enqueue(new MockResponse.Builder().code(503).build());
    oncely = OncelyAndroid.start(context, oneAttempt());
    oncely.resumedOnStart().get(20, TimeUnit.SECONDS);
    OkHttpClient app = oncely.interceptor(IdempotencyInterceptor.builder()
            .retryPolicy(RetryPolicy.builder().maxAttempts(1)
                .attemptTimeout(Duration.ofSeconds(10)).build())).installOn(new OkHttpClient.Builder())
        .build();
    Request order = new Request.Builder().url(server.url("/payments"))
        .tag(IntentTag.class, IntentTag.builder().operation("create-payment").scope("tenant-a")
            .businessId("order-9").build())
        .post(RequestBody.create("{\"amount\":1000}", MediaType.get("application/json")))
        .build();
    try (Response response = app.newCall(order).execute()) {
      assertThat(response.code()).isEqualTo(503);
    }
    assertThat(job()).isNotNull();
    server.enqueue(new MockResponse.Builder().code(201).body("{\"id\":\"p-9\"}").build());

    List<IntentOutcome> resumed = oncely.resumeInBackground().get(20, TimeUnit.SECONDS);

    assertThat(resumed).singleElement().isInstanceOf(IntentOutcome.Completed.class);
    assertThat(jobs.getPendingJob(OncelyResumeJobService.JOB_ID)).isNull();
    RecordedRequest first = server.takeRequest(5, TimeUnit.SECONDS);
    RecordedRequest second = server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(second.getHeaders().get("Idempotency-Key"))
        .isEqualTo(first.getHeaders().get("Idempotency-Key")).isNotNull();
    assertThat(second.getBody().utf8()).isEqualTo("{\"amount\":1000}");
  }

  @Test
  public void the_job_service_finds_the_running_instance_and_none_after_close() {
    oncely = OncelyAndroid.start(context, oneAttempt());
    assertThat(OncelyAndroid.running()).isSameAs(oncely);
    oncely.close();
    assertThat(OncelyAndroid.running()).isNull();
    oncely = null;
  }
}
