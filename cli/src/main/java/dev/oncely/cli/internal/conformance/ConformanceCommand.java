package dev.oncely.cli.internal.conformance;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncely.cli.internal.CliException;
import dev.oncely.cli.internal.DialectNames;
import dev.oncely.cli.internal.ExitCode;
import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.dialect.Dialects;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import okhttp3.HttpUrl;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code conformance URL --body JSON}: probes a server's idempotency contract with a handful of
 * requests under fresh keys and prints what it does, whether the built-in dialect named by {@code
 * --dialect} fits it ({@link DialectFit}), and the {@code Dialects.custom(...)} code that fits.
 * Creates at most {@link Prober#MAX_EFFECTS} business effects; refuses a host that is not loopback
 * unless {@code --yes} is given.
 */
@Command(name = "conformance", mixinStandardHelpOptions = true,
    description = "Probe a server's idempotency contract and print the dialect that fits it."
        + " Creates real effects (at most " + Prober.MAX_EFFECTS + "): use a test account.")
public final class ConformanceCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "URL", description = "The endpoint that creates effects, e.g. http://127.0.0.1:8080/payments.")
  String url;

  @Option(names = "--body", required = true, paramLabel = "JSON",
      description = "A request body the server accepts (JSON object for the body probes).")
  String body;

  @Option(names = "--method", defaultValue = "POST", paramLabel = "METHOD",
      description = "HTTP method; default: ${DEFAULT-VALUE}.")
  String method;

  @Option(names = "--dialect", defaultValue = "ietf", paramLabel = "NAME",
      description = "How the key is sent: ietf (quoted Idempotency-Key), stripe (plain), paypal (PayPal-Request-Id); default: ${DEFAULT-VALUE}.")
  String dialect;

  @Option(names = "--key-header", paramLabel = "NAME",
      description = "Send the key in this header instead of the dialect's (plain unless --quote-key).")
  String keyHeader;

  @Option(names = "--quote-key", description = "With --key-header: send the key as a quoted string.")
  boolean quoteKey;

  @Option(names = "--header", paramLabel = "'NAME: VALUE'",
      description = "Extra request header, e.g. credentials for a test account (never printed). Repeatable.")
  List<String> headers;

  @Option(names = "--server-error-header", paramLabel = "'NAME: VALUE'",
      description = "The server's documented test hook that makes the handler answer 5xx; without it the 5xx probe is not run.")
  String serverErrorHeader;

  @Option(names = "--timeout", defaultValue = "PT10S", paramLabel = "DURATION",
      description = "Per-request timeout (ISO-8601); default: ${DEFAULT-VALUE}.")
  Duration timeout;

  @Option(names = "--yes", description = "Run against a host that is not loopback (creates real effects there).")
  boolean yes;

  @Option(names = "--json", description = "Print JSON instead of a table.")
  boolean json;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    HttpUrl target = HttpUrl.parse(url);
    if (target == null) {
      throw CliException.usage("URL must be an http or https URL, was '" + url + "'");
    }
    if (!yes && !loopback(target.host())) {
      throw CliException.refused(target.host() + " is not a loopback host: this check creates up to "
          + Prober.MAX_EFFECTS + " real effects there. Point it at a test account and add --yes.");
    }
    if (timeout.isNegative() || timeout.isZero()) {
      throw CliException.usage("--timeout must be positive, was " + timeout);
    }
    Dialect keyDialect = keyDialect();
    Map<String, String> extra = new LinkedHashMap<>();
    for (String header : headers == null ? List.<String>of() : headers) {
      extra.putAll(parseHeader("--header", header));
    }
    Map<String, String> hook = serverErrorHeader == null ? Map.of()
        : parseHeader("--server-error-header", serverErrorHeader);
    PrintWriter out = spec.commandLine().getOut();
    if (!json) {
      out.println("Probing " + target.newBuilder().query(null).build() + " (" + method
          + ", key in " + keyDialect.keyHeader() + "); at most " + Prober.MAX_EFFECTS
          + " test effects.");
      out.flush();
    }
    try (ProbeClient client = new ProbeClient(method.toUpperCase(Locale.ROOT), keyDialect, extra,
        timeout)) {
      Prober prober = new Prober(client, keyDialect, target.toString(), body, hook);
      List<Finding> findings = prober.run();
      String code = DialectCode.of(target.host(), prober.profile());
      // Only a built-in dialect is judged: a --key-header names no dialect the client ships.
      DialectFit fit = keyHeader == null ? prober.fitOf(keyDialect) : null;
      if (json) {
        printJson(out, findings, code, prober, client, keyDialect, fit);
      } else {
        printText(out, findings, code, prober, client, keyDialect, fit);
      }
      return findings.stream().anyMatch(Finding::risk) ? ExitCode.FAILURE : ExitCode.OK;
    }
  }

  private Dialect keyDialect() {
    if (keyHeader != null) {
      try {
        return Dialects.custom("probe").keyHeader(keyHeader).quoteKey(quoteKey).build();
      } catch (IllegalArgumentException e) {
        throw CliException.usage("--key-header: " + e.getMessage());
      }
    }
    return DialectNames.parse("--dialect", dialect);
  }

  private static Map<String, String> parseHeader(String option, String line) {
    try {
      return Prober.header(line);
    } catch (IllegalArgumentException e) {
      throw CliException.usage(option + ": " + e.getMessage());
    }
  }

  private static boolean loopback(String host) {
    try {
      for (InetAddress address : InetAddress.getAllByName(host)) {
        if (!address.isLoopbackAddress()) {
          return false;
        }
      }
      return true;
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static void printText(PrintWriter out, List<Finding> findings, String code,
      Prober prober, ProbeClient client, Dialect keyDialect, DialectFit fit) {
    int probeWidth = "PROBE".length();
    int answerWidth = "ANSWERS".length();
    for (Finding f : findings) {
      probeWidth = Math.max(probeWidth, f.probe().length());
      answerWidth = Math.max(answerWidth, f.answers().length());
    }
    String row = "%-" + probeWidth + "s  %-" + answerWidth + "s  %s%n";
    out.printf(row, "PROBE", "ANSWERS", "VERDICT");
    for (Finding f : findings) {
      out.printf(row, f.probe(), f.answers(), (f.risk() ? "RISK: " : "") + f.verdict());
    }
    out.println();
    out.println(client.sent() + " requests, " + prober.effects() + " test effects created (at most "
        + Prober.MAX_EFFECTS + ").");
    out.println();
    if (fit != null) {
      out.println(fit.line(keyDialect));
      out.println();
    }
    out.println("The dialect that fits:");
    out.println(code);
  }

  private static void printJson(PrintWriter out, List<Finding> findings, String code,
      Prober prober, ProbeClient client, Dialect keyDialect, DialectFit fit) {
    ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    ObjectNode root = mapper.createObjectNode();
    ArrayNode array = root.putArray("findings");
    for (Finding f : findings) {
      array.addObject().put("probe", f.probe()).put("answers", f.answers())
          .put("verdict", f.verdict()).put("risk", f.risk());
    }
    root.put("requests", client.sent());
    root.put("effects", prober.effects());
    root.put("maxEffects", Prober.MAX_EFFECTS);
    if (fit != null) {
      root.putObject("builtInDialect").put("name", "Dialects." + keyDialect.name() + "()")
          .put("verdict", fit.verdictText()).put("detail", fit.detail());
    }
    root.put("dialectCode", code);
    try {
      out.println(mapper.writeValueAsString(root));
    } catch (JsonProcessingException e) {
      throw CliException.failure("cannot write JSON: " + e.getOriginalMessage(), e);
    }
  }
}
