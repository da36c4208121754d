package dev.oncely.spring.boot.webhooks;

import dev.oncely.server.webhook.GitHubSignatures;
import dev.oncely.server.webhook.HmacSignatures;
import dev.oncely.server.webhook.StandardWebhooks;
import dev.oncely.server.webhook.StripeSignatures;
import dev.oncely.server.webhook.WebhookVerifier;
import dev.oncely.spring.boot.OncelyPropertyException;
import dev.oncely.spring.boot.internal.PropertySettings;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Turns {@code oncely.webhooks.sources.<name>.*} into one {@link WebhookVerifier} per source, so
 * that every refusal names the property ({@code oncely.webhooks.sources.stripe.secrets is empty}).
 * A secret's value never appears in a refusal: only its position.
 */
final class WebhookSources {
  /** The schemes a source can name. */
  static final List<String> SCHEMES = List.of("standard", "stripe", "github", "hmac");

  private WebhookSources() {}

  /**
   * The verifier of every configured source, in the order they were configured.
   *
   * @throws OncelyPropertyException naming the first property that is refused
   */
  static Map<String, WebhookVerifier> verifiers(OncelyWebhooksProperties properties) {
    Map<String, WebhookVerifier> out = new LinkedHashMap<>();
    properties.getSources().forEach((name, source) -> out.put(name, verifier(name, source)));
    return out;
  }

  /** The prefix of source {@code name}'s properties. */
  static String prefix(String name) {
    return "oncely.webhooks.sources." + (name.contains(".") ? "[" + name + "]" : name);
  }

  /**
   * The scheme source {@code name} uses: its {@code scheme}, or its name when that is a scheme.
   *
   * @throws OncelyPropertyException if it names none, or an unknown one
   */
  static String schemeOf(String name, OncelyWebhooksProperties.Source source) {
    String property = prefix(name) + ".scheme";
    String scheme = source.getScheme();
    if (scheme == null || scheme.isBlank()) {
      String byName = name.toLowerCase(Locale.ROOT);
      if (SCHEMES.contains(byName)) {
        return byName;
      }
      throw new OncelyPropertyException(property, null, "is not set: name the signature scheme"
          + " of source " + name + " (" + String.join(", ", SCHEMES) + "); it defaults to the"
          + " source's name only when that is one of them", null);
    }
    String s = scheme.trim().toLowerCase(Locale.ROOT);
    if (!SCHEMES.contains(s)) {
      throw new OncelyPropertyException(property, scheme, "must be one of "
          + String.join(", ", SCHEMES) + ", was " + scheme, null);
    }
    return s;
  }

  private static WebhookVerifier verifier(String name, OncelyWebhooksProperties.Source source) {
    String prefix = prefix(name);
    String scheme = schemeOf(name, source);
    List<String> secrets = source.getSecrets();
    if (secrets.isEmpty()) {
      throw new OncelyPropertyException(prefix + ".secrets", null, "is empty: source " + name
          + " needs at least one signing secret (several while rotating; a delivery signed with"
          + " any of them is accepted)", null);
    }
    if (!scheme.equals("hmac") && source.getHmac().named()) {
      throw new OncelyPropertyException(prefix + ".hmac", null, "is set, but the source's"
          + " scheme is " + scheme + "; the hmac.* settings describe scheme hmac only", null);
    }
    Duration tolerance = source.getTolerance();
    return switch (scheme) {
      case "standard" -> {
        StandardWebhooks.Builder b = StandardWebhooks.builder();
        secrets(prefix, secrets, b::secret);
        if (tolerance != null) {
          PropertySettings.set(prefix + ".tolerance", "tolerance", tolerance, b::tolerance);
        }
        yield build(prefix, b::build);
      }
      case "stripe" -> {
        StripeSignatures.Builder b = StripeSignatures.builder();
        secrets(prefix, secrets, b::secret);
        if (tolerance != null) {
          PropertySettings.set(prefix + ".tolerance", "tolerance", tolerance, b::tolerance);
        }
        yield build(prefix, b::build);
      }
      case "github" -> {
        if (tolerance != null) {
          throw new OncelyPropertyException(prefix + ".tolerance", tolerance, "is set, but"
              + " GitHub signs no timestamp: a replay is caught by its delivery id while the"
              + " inbox keeps it (the source's retention)", null);
        }
        GitHubSignatures.Builder b = GitHubSignatures.builder();
        secrets(prefix, secrets, b::secret);
        yield build(prefix, b::build);
      }
      default -> hmac(prefix, source, secrets, tolerance);
    };
  }

  private static WebhookVerifier hmac(String prefix, OncelyWebhooksProperties.Source source,
      List<String> secrets, @Nullable Duration tolerance) {
    OncelyWebhooksProperties.Hmac h = source.getHmac();
    String p = prefix + ".hmac.";
    HmacSignatures.Builder b = HmacSignatures.builder();
    if (h.getSignatureHeader() == null) {
      throw new OncelyPropertyException(p + "signature-header", null, "is not set: scheme hmac"
          + " needs the header the signature comes in", null);
    }
    PropertySettings.set(p + "signature-header", "name", h.getSignatureHeader(),
        b::signatureHeader);
    PropertySettings.set(p + "prefix", "prefix", h.getPrefix(), b::prefix);
    if (h.getSeparator() != null) {
      PropertySettings.set(p + "separator", "separator", h.getSeparator(), b::separator);
    }
    b.encoding(h.getEncoding()).algorithm(h.getAlgorithm()).signedContent(h.getSignedContent());
    if (h.getIdHeader() != null) {
      PropertySettings.set(p + "id-header", "name", h.getIdHeader(), b::idHeader);
    }
    if (h.getIdMember() != null) {
      PropertySettings.set(p + "id-member", "name", h.getIdMember(), b::idMember);
    }
    if (h.getTypeHeader() != null) {
      PropertySettings.set(p + "type-header", "name", h.getTypeHeader(), b::typeHeader);
    }
    if (h.getTypeMember() != null) {
      PropertySettings.set(p + "type-member", "name", h.getTypeMember(), b::typeMember);
    }
    if (h.getTimestampHeader() != null) {
      PropertySettings.set(p + "timestamp-header", "name", h.getTimestampHeader(),
          b::timestampHeader);
    }
    if (tolerance != null) {
      if (h.getTimestampHeader() == null) {
        throw new OncelyPropertyException(prefix + ".tolerance", tolerance, "is set, but the"
            + " source names no timestamp header (hmac.timestamp-header)", null);
      }
      PropertySettings.set(prefix + ".tolerance", "tolerance", tolerance, b::tolerance);
    }
    for (int i = 0; i < secrets.size(); i++) {
      String property = prefix + ".secrets[" + i + "]";
      String secret = secrets.get(i) == null ? "" : secrets.get(i).trim();
      if (secret.isEmpty()) {
        throw new OncelyPropertyException(property, null, "is empty", null);
      }
      byte[] key = switch (h.getSecretEncoding()) {
        case TEXT -> secret.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        case BASE64 -> decode(property, "base64", () -> Base64.getDecoder().decode(secret));
        case HEX -> decode(property, "hex", () -> HexFormat.of().parseHex(secret));
      };
      PropertySettings.set(property, "secret", key, null, b::secret);
    }
    // The builder checks the parts together (an id from exactly one place, a signed timestamp):
    // its message names the builder's settings, which the hmac.* properties mirror.
    return build(prefix + ".hmac", b::build);
  }

  private static byte[] decode(String property, String encoding,
      java.util.function.Supplier<byte[]> decoder) {
    try {
      return decoder.get();
    } catch (IllegalArgumentException e) {
      // The decoder's message may quote the secret: drop it.
      throw new OncelyPropertyException(property, null, "is not " + encoding + " (hmac"
          + ".secret-encoding=" + encoding + ")", null);
    }
  }

  private static void secrets(String prefix, List<String> secrets, Consumer<String> add) {
    for (int i = 0; i < secrets.size(); i++) {
      String secret = secrets.get(i);
      String property = prefix + ".secrets[" + i + "]";
      if (secret == null || secret.isBlank()) {
        throw new OncelyPropertyException(property, null, "is empty", null);
      }
      // The value is never shown: a refused secret is still a secret.
      PropertySettings.set(property, "secret", secret.trim(), null, add);
    }
  }

  private static <T> T build(String property, java.util.function.Supplier<T> build) {
    try {
      return build.get();
    } catch (IllegalStateException | IllegalArgumentException e) {
      throw PropertySettings.refused(property, "", null, e);
    }
  }
}
