package dev.oncely.spring.boot.webhooks;

import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Whether the webhooks are configured: {@code oncely.webhooks.enabled} when it is set, else
 * whether {@code oncely.webhooks.sources} names a source (in any form Boot binds: properties,
 * YAML, environment variables).
 */
class WebhooksCondition extends SpringBootCondition {
  @Override
  public ConditionOutcome getMatchOutcome(ConditionContext context,
      AnnotatedTypeMetadata metadata) {
    ConditionMessage.Builder message = ConditionMessage.forCondition("Oncely webhooks");
    Environment env = context.getEnvironment();
    Boolean enabled = env.getProperty("oncely.webhooks.enabled", Boolean.class);
    if (enabled != null) {
      return enabled ? ConditionOutcome.match(message.because("oncely.webhooks.enabled is true"))
          : ConditionOutcome.noMatch(message.because("oncely.webhooks.enabled is false"));
    }
    return hasSources(env)
        ? ConditionOutcome.match(message.because("oncely.webhooks.sources names a source"))
        : ConditionOutcome.noMatch(message.because("no oncely.webhooks.sources and"
            + " oncely.webhooks.enabled unset"));
  }

  /** Whether {@code oncely.webhooks.sources} names at least one source. */
  static boolean hasSources(Environment env) {
    return Binder.get(env).bind("oncely.webhooks.sources",
        Bindable.mapOf(String.class, Object.class)).map(Map::isEmpty).map(empty -> !empty)
        .orElse(false);
  }

  /** Matches when {@code oncely.webhooks.sources} names a source: the receiver needs one. */
  static class Sources extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context,
        AnnotatedTypeMetadata metadata) {
      ConditionMessage.Builder message = ConditionMessage.forCondition("Oncely webhook sources");
      return hasSources(context.getEnvironment())
          ? ConditionOutcome.match(message.because("oncely.webhooks.sources names a source"))
          : ConditionOutcome.noMatch(message.because("oncely.webhooks.sources is empty"));
    }
  }
}
