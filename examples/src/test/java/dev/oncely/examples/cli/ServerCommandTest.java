package dev.oncely.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.examples.server.FaultPlan;
import dev.oncely.examples.server.ReferenceServer;
import dev.oncely.examples.server.ServerDialect;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;

class ServerCommandTest {
  @Test
  void options_configure_dialect_faults_and_slow_share() throws Exception {
    try (ReferenceServer server = ServerCommand.configure(List.of(
            "--dialect", "stripe", "--faults", "drop=0.5,seed=3", "--slow=0.25",
            "--slow-for", "50ms", "--retry-after", "0", "--accept-keyless"))
        .build().start()) {
      assertThat(server.dialect()).isEqualTo(ServerDialect.STRIPE);
      assertThat(server.faults()).isEqualTo(FaultPlan.parse("drop=0.5,seed=3"));
    }
  }

  @Test
  void repeated_option_is_refused() {
    assertThatThrownBy(() -> ServerCommand.configure(List.of("--port", "1", "--port", "2")))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("--port is given more than once");
  }

  @Test
  void slow_share_out_of_range_is_refused_naming_the_option() {
    assertThatThrownBy(() -> ServerCommand.configure(List.of("--slow", "2")))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("--slow").hasMessageContaining("'2'");
  }

  @Test
  void server_in_a_child_jvm_prints_its_url_and_serves_payments_until_killed()
      throws Exception {
    String classPath = System.getProperty("surefire.test.class.path",
        System.getProperty("java.class.path"));
    Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
    Process child = new ProcessBuilder(java.toString(), "-cp", classPath,
        "dev.oncely.examples.Main", "server", "--port", "0", "--faults", "seed=1")
        .redirectError(ProcessBuilder.Redirect.to(new File("target/server-child.err")))
        .start();
    try {
      BufferedReader stdout = new BufferedReader(
          new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      String url = CompletableFuture.supplyAsync(() -> readLine(stdout))
          .get(30, TimeUnit.SECONDS);
      assertThat(url).startsWith("http://127.0.0.1:");

      OkHttpClient client = new OkHttpClient();
      Request post = new Request.Builder().url(url + "payments")
          .header("Idempotency-Key", "\"child-1\"")
          .post(RequestBody.create("{\"amount\":1000,\"order\":\"o-1\"}",
              MediaType.get("application/json")))
          .build();
      try (Response r = client.newCall(post).execute()) {
        assertThat(r.code()).isEqualTo(201);
      }
      try (Response r = client.newCall(new Request.Builder().url(url + "stats").build())
          .execute()) {
        assertThat(r.body().string()).contains("\"effects\":1");
      }
    } finally {
      child.destroyForcibly();
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static String readLine(BufferedReader reader) {
    try {
      return reader.readLine();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
