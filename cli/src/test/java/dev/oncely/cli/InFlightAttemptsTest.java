package dev.oncely.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncely.persistence.StoreEngine;
import dev.oncely.testing.Fault;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The attempt count is true while an intent is in flight: an app (a child JVM) pays through the
 * interceptor, its server has seen two attempts and never answered, the app is killed during the
 * second one, and {@code oncely list} shows the record {@code IN_FLIGHT} with 2 attempts, after
 * an immediate retry and after a backoff alike.
 */
class InFlightAttemptsTest {
  @TempDir Path dir;

  private final MockWebServer server = new MockWebServer();

  @BeforeEach
  void start() throws Exception {
    server.start();
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
  }

  @ParameterizedTest
  @ValueSource(longs = {0, 100})
  void a_record_killed_during_its_second_attempt_lists_two_attempts(long backoffMillis)
      throws Exception {
    for (int i = 0; i < 3; i++) {
      server.enqueue(Fault.stallAfterCommit().applyTo(new MockResponse.Builder().code(201))
          .build());
    }
    Path file = dir.resolve("app.db");
    Process app = java(DrivingAppChild.class.getName(), StoreEngine.MAPDB.toString(),
        file.toString(), server.url("/payments").toString(), Long.toString(backoffMillis))
        .redirectErrorStream(true).redirectOutput(dir.resolve("app.out").toFile()).start();
    try {
      assertThat(server.takeRequest(30, TimeUnit.SECONDS)).as("first attempt").isNotNull();
      assertThat(server.takeRequest(30, TimeUnit.SECONDS)).as("second attempt").isNotNull();
    } finally {
      // Killed while the second attempt is on the wire.
      app.destroyForcibly();
      assertThat(app.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }

    CliRun table = CliRun.of(Clock.systemUTC(), "list", "--store", file.toString());
    CliRun json = CliRun.of(Clock.systemUTC(), "list", "--json", "--store", file.toString());

    assertThat(table.exitCode()).as(table.toString()).isZero();
    assertThat(table.out()).containsPattern("IN_FLIGHT +\\S+ +2 ");
    JsonNode record = new ObjectMapper().readTree(json.out()).get(0);
    assertThat(record.get("state").asText()).isEqualTo("IN_FLIGHT");
    assertThat(record.get("attempts").asInt()).as(json.toString()).isEqualTo(2);
  }

  private ProcessBuilder java(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Dorg.sqlite.tmpdir=" + Files.createDirectories(dir.resolve("native")),
        "-cp", System.getProperty("java.class.path")));
    command.addAll(List.of(args));
    return new ProcessBuilder(command);
  }
}
