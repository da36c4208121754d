package dev.oncely.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.examples.Main;
import dev.oncely.examples.shop.ShopSettings;
import dev.oncely.server.ServerDialect;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The {@code shop} command line: every option, every refusal naming the option and value. */
class ShopCommandTest {
  private static final String STANDARD_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

  @Test
  void options_configure_port_store_dialect_lease_and_provider() throws UsageException {
    ShopSettings s = ShopCommand.configure(List.of("--store", "data/shop.db", "--port", "0",
        "--dialect", "STRIPE", "--lease", "2s", "--provider", "http://127.0.0.1:9/charges",
        "--provider-timeout", "250ms")).build();

    assertThat(s.store()).isEqualTo(Path.of("data/shop.db").toAbsolutePath());
    assertThat(s.paymentsFile().getFileName()).hasToString("shop.db.payments");
    assertThat(s.outboundFile().getFileName()).hasToString("shop.db.outbound");
    assertThat(s.port()).isZero();
    assertThat(s.dialect()).isEqualTo(ServerDialect.STRIPE);
    assertThat(s.lease()).isEqualTo(Duration.ofSeconds(2));
    assertThat(s.provider()).isEqualTo("http://127.0.0.1:9/charges");
    assertThat(s.providerTimeout()).isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void defaults_are_port_8080_ietf_a_5s_lease_and_no_provider() throws UsageException {
    ShopSettings s = ShopCommand.configure(List.of("--store", "shop.db")).build();

    assertThat(s.port()).isEqualTo(8080);
    assertThat(s.dialect()).isEqualTo(ServerDialect.IETF);
    assertThat(s.lease()).isEqualTo(Duration.ofSeconds(5));
    assertThat(s.provider()).isNull();
  }

  @Test
  void webhook_secrets_name_their_source_repeat_for_rotation_and_keep_the_inbox_beside_the_store()
      throws UsageException {
    ShopSettings s = ShopCommand.configure(List.of("--store", "data/shop.db",
        "--webhook-secret", "standard=" + STANDARD_SECRET,
        "--webhook-secret", "stripe=whsec_test_5eKc0ZbN9xQ2tLr7",
        "--webhook-secret=standard=whsec_c2Vjb25kIHNlY3JldCBieXRlcw==",
        "--webhook-secret", "github=gh-hook-token-3f9a")).build();
    ShopSettings none = ShopCommand.configure(List.of("--store", "shop.db")).build();

    assertThat(s.webhookSources()).containsExactly("standard", "stripe", "github");
    assertThat(s.inboxFile().getFileName()).hasToString("shop.db.inbox");
    assertThat(s.toString()).contains("webhooks=[standard, stripe, github]")
        .doesNotContain("whsec_", "gh-hook-token");
    assertThat(none.webhookSources()).isEmpty();
  }

  @ParameterizedTest(name = "--webhook-secret {0}")
  @CsvSource(delimiter = '|', value = {
      "paypal=whsec_bm90IHNob3du | 'NAME=SECRET with NAME one of standard, stripe, github'"
          + " | <hidden>",
      "whsec_bm90IHNob3du== | 'NAME=SECRET with NAME one of standard, stripe, github'"
          + " | <hidden>",
      "standard=not-base64-secret! | 'a secret the standard scheme takes (whsec_ and base64)'"
          + " | standard=<hidden>"})
  void a_bad_webhook_secret_is_refused_without_showing_the_secret(String given, String rule,
      String shown) {
    assertThatThrownBy(() -> ShopCommand.configure(List.of("--store", "shop.db",
        "--webhook-secret", given)))
        .isInstanceOf(UsageException.class)
        .hasMessage("option --webhook-secret of shop must be " + rule + ", was '" + shown + "'")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("bm90IHNob3du",
            "not-base64-secret"));
  }

  @Test
  void the_store_is_required() {
    assertThatThrownBy(() -> ShopCommand.configure(List.of("--port", "8080")))
        .isInstanceOf(UsageException.class)
        .hasMessage("option --store is required for shop");
  }

  @ParameterizedTest(name = "--{0} {1}")
  @CsvSource({
      "port, 70000, 'an integer in [0, 65535]'",
      "dialect, paypal, ietf or stripe",
      "lease, 0s, a duration from 1s to 3600s",
      "lease, 2h, a duration such as 250ms or 2s",
      "lease, 7200s, a duration from 1s to 3600s",
      "provider, ftp://example.com/charges, an absolute http(s) URL",
      "provider-timeout, 5ms, a duration from 10ms to 60s"})
  void a_bad_value_is_refused_naming_the_option_and_the_value(String option, String value,
      String rule) {
    assertThatThrownBy(() -> ShopCommand.configure(List.of("--store", "shop.db", "--" + option,
        value)))
        .isInstanceOf(UsageException.class)
        .hasMessage("option --" + option + " of shop must be " + rule + ", was '" + value + "'");
  }

  @Test
  void the_builder_refuses_bad_values_with_the_examples_one_wording() {
    assertThatThrownBy(() -> ShopSettings.builder().port(-1))
        .hasMessage("port must be in [0, 65535], was -1");
    assertThatThrownBy(() -> ShopSettings.builder().lease(Duration.ofMillis(500)))
        .hasMessage("lease must be in [1s, 3600s], was 500ms");
    assertThatThrownBy(() -> ShopSettings.builder().provider("localhost:9"))
        .hasMessage("provider must be an absolute http(s) URL, was 'localhost:9'");
    assertThatThrownBy(() -> ShopSettings.builder().build())
        .hasMessage("store is required");
  }

  @Test
  void help_names_the_options_and_the_endpoints() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code = Main.run(new String[] {"shop", "--help"},
        new PrintStream(out, true, StandardCharsets.UTF_8), System.err);

    assertThat(code).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("shop --store FILE")
        .contains("--dialect").contains("--lease").contains("--provider")
        .contains("POST /payments").contains("GET /payments/{id}").contains("GET /stats")
        .contains("POST /reset").contains("--webhook-secret NAME=SECRET")
        .contains("POST /webhooks/{standard,stripe,github}");
  }
}
