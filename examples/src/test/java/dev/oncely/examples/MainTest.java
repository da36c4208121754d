package dev.oncely.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Subcommand dispatch and usage errors, run in-process through {@link Main#run}. */
class MainTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void unknown_subcommand_exits_2_naming_it() {
    assertThat(run("frobnicate")).isEqualTo(2);
    assertThat(err()).contains("unknown subcommand 'frobnicate'").contains("server");
  }

  @Test
  void server_with_an_unknown_option_exits_2_naming_it_and_showing_usage() {
    assertThat(run("server", "--prot", "8080")).isEqualTo(2);
    assertThat(err()).contains("unknown option --prot").contains("usage: server");
  }

  @Test
  void server_with_a_bad_faults_spec_exits_2_naming_the_bad_item() {
    assertThat(run("server", "--faults", "drop=0.2,stal=0.1")).isEqualTo(2);
    assertThat(err()).contains("'stal=0.1'").contains("unknown fault 'stal'");
  }

  @Test
  void server_with_a_bad_dialect_exits_2_naming_option_and_value() {
    assertThat(run("server", "--dialect", "paypal")).isEqualTo(2);
    assertThat(err()).contains("--dialect").contains("'paypal'");
  }

  @Test
  void server_with_a_port_out_of_range_exits_2() {
    assertThat(run("server", "--port=70000")).isEqualTo(2);
    assertThat(err()).contains("--port").contains("'70000'");
  }

  @Test
  void server_option_without_its_value_exits_2() {
    assertThat(run("server", "--faults")).isEqualTo(2);
    assertThat(err()).contains("--faults of server needs a value");
  }

  @Test
  void positional_argument_exits_2_naming_it() {
    assertThat(run("server", "8080")).isEqualTo(2);
    assertThat(err()).contains("unexpected argument '8080'");
  }

  @Test
  void demo_is_the_default_subcommand_and_refuses_a_bad_option_naming_it() {
    assertThat(run("--intents", "0")).isEqualTo(2);
    assertThat(err()).contains("demo: option --intents of demo must be an integer in [1, 1000000]")
        .contains("was '0'");
  }

  @Test
  void demo_refuses_a_bad_faults_item_naming_it() {
    assertThat(run("demo", "--faults", "stal=0.1")).isEqualTo(2);
    assertThat(err()).contains("bad faults item 'stal=0.1'");
  }

  @Test
  void help_lists_every_subcommand_and_exits_0() {
    assertThat(run("help")).isZero();
    String text = out.toString(StandardCharsets.UTF_8);
    Main.COMMANDS.keySet().forEach(name -> assertThat(text).contains(name));
  }
}
