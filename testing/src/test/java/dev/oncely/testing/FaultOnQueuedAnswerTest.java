package dev.oncely.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.Call;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link Fault#applyTo} scripts the wire faults on answers a test queues itself. */
class FaultOnQueuedAnswerTest {
  private final MockWebServer web = new MockWebServer();
  private final OkHttpClient http = new OkHttpClient.Builder()
      .readTimeout(300, TimeUnit.MILLISECONDS).retryOnConnectionFailure(false).build();

  @AfterEach
  void stop() throws IOException {
    web.close();
  }

  private Call post() throws IOException {
    if (!web.getStarted()) {
      web.start();
    }
    return http.newCall(new Request.Builder().url(web.url("/payments"))
        .post(RequestBody.create("{\"amount\":5}", MediaType.get("application/json"))).build());
  }

  private static MockResponse.Builder created(String body) {
    return new MockResponse.Builder().code(201).body(body);
  }

  @Test
  void drop_after_commit_on_a_queued_answer_reaches_the_client_as_an_eof_after_the_request()
      throws Exception {
    web.enqueue(Fault.dropAfterCommit().applyTo(created("{\"id\":\"pay_1\"}")).build());

    assertThatThrownBy(() -> post().execute().close()).isInstanceOf(IOException.class)
        .isNotInstanceOf(InterruptedIOException.class);
    assertThat(web.takeRequest().getBody().utf8()).isEqualTo("{\"amount\":5}");
  }

  @Test
  void refuse_on_a_queued_answer_closes_the_connection_before_any_answer() throws Exception {
    web.enqueue(Fault.refuse().applyTo(created("never sent")).build());

    assertThatThrownBy(() -> post().execute().close()).isInstanceOf(IOException.class)
        .isNotInstanceOf(InterruptedIOException.class);
  }

  @Test
  void stall_after_commit_on_a_queued_answer_ends_in_the_clients_read_timeout() {
    web.enqueue(Fault.stallAfterCommit().applyTo(created("never sent")).build());

    assertThatThrownBy(() -> post().execute().close())
        .isInstanceOf(InterruptedIOException.class);
  }

  @Test
  void truncated_body_on_a_queued_answer_gives_the_status_but_not_the_whole_body()
      throws Exception {
    web.enqueue(Fault.truncateBody().applyTo(created("x".repeat(256 * 1024))).build());

    try (Response r = post().execute()) {
      assertThat(r.code()).isEqualTo(201);
      assertThatThrownBy(() -> r.body().string()).isInstanceOf(IOException.class);
    }
  }

  @Test
  void informational_on_a_queued_answer_precedes_the_real_answer_on_the_wire() throws Exception {
    web.enqueue(Fault.informational(103).applyTo(created("{\"id\":\"pay_1\"}")).build());
    web.start();

    // OkHttp skips informational answers without telling; the raw bytes show them.
    String wire;
    try (Socket socket = new Socket(web.getHostName(), web.getPort())) {
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write(("GET / HTTP/1.1\r\nHost: " + web.getHostName()
          + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      StringBuilder read = new StringBuilder();
      byte[] chunk = new byte[4096];
      for (int n; !read.toString().endsWith("pay_1\"}")
          && (n = socket.getInputStream().read(chunk)) > 0; ) {
        read.append(new String(chunk, 0, n, StandardCharsets.US_ASCII));
      }
      wire = read.toString();
    }

    assertThat(wire).startsWith("HTTP/1.1 103 ");
    assertThat(wire.indexOf("HTTP/1.1 201 ")).isGreaterThan(0);
    assertThat(wire).endsWith("{\"id\":\"pay_1\"}");
  }

  @Test
  void faults_that_need_the_servers_records_are_refused_on_a_queued_answer() {
    for (Fault f : List.of(Fault.answer(503), Fault.gatewayAfterCommit(524), Fault.lostRecord(),
        Fault.lateOriginal(), Fault.processingSlowly(1), Fault.handlerError(500))) {
      assertThat(f.actsOnTheWire()).as("%s", f).isFalse();
      assertThatThrownBy(() -> f.applyTo(created("x")))
          .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining(f.toString());
    }
    for (Fault f : List.of(Fault.refuse(), Fault.dropAfterCommit(), Fault.stallAfterCommit(),
        Fault.truncateBody(), Fault.informational(103))) {
      assertThat(f.actsOnTheWire()).as("%s", f).isTrue();
    }
  }
}
