package dev.oncely.spring.boot.webhooks;

import dev.oncely.server.inbox.InboxHandler;
import dev.oncely.server.inbox.InboxMessage;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;

/**
 * Every {@link WebhookHandler} of the application, by source and type, read from the bean
 * definitions' types before any handler bean exists (the inbox is built with a handler per source
 * that has one; the beans are resolved on their first message). Refuses at once what it cannot
 * route: see {@link WebhookHandlerException}.
 */
final class WebhookHandlerTable {
  private static final Logger LOG = Logger.getLogger(WebhookHandlerTable.class.getName());

  private final Map<String, Dispatch> sources;

  private WebhookHandlerTable(Map<String, Dispatch> sources) {
    this.sources = sources;
  }

  /**
   * Reads the handlers of {@code beans}.
   *
   * @param configured the sources {@code oncely.webhooks.sources} configures
   * @throws WebhookHandlerException for the first handler that cannot be routed
   */
  static WebhookHandlerTable read(ConfigurableListableBeanFactory beans,
      Collection<String> configured) {
    Map<String, Dispatch> sources = new LinkedHashMap<>();
    JsonPayloads[] json = new JsonPayloads[1];
    for (String name : beans.getBeanDefinitionNames()) {
      if (ScopedProxyUtils.isScopedTarget(name)) {
        continue;
      }
      Class<?> type = beans.getType(name, false);
      if (type == null || !AnnotationUtils.isCandidateClass(type, WebhookHandler.class)) {
        continue;
      }
      type = ClassUtils.getUserClass(type);
      WebhookHandler onBean = beans.findAnnotationOnBean(name, WebhookHandler.class, false);
      if (onBean != null) {
        String description = "bean '" + name + "' (" + type.getName() + ")";
        if (!InboxHandler.class.isAssignableFrom(type)) {
          throw new WebhookHandlerException(description, "@WebhookHandler on " + description
              + ", which is not an InboxHandler: annotate its methods instead, or implement"
              + " InboxHandler");
        }
        add(sources, configured, onBean,
            new HandlerCall.Bean(beans, name, description));
      }
      Map<Method, WebhookHandler> methods = MethodIntrospector.selectMethods(type,
          (MethodIntrospector.MetadataLookup<WebhookHandler>) m ->
              AnnotatedElementUtils.hasAnnotation(m, Bean.class) ? null
                  : AnnotatedElementUtils.findMergedAnnotation(m, WebhookHandler.class));
      List<Method> ordered = new ArrayList<>(methods.keySet());
      ordered.sort(Comparator.comparing(Method::toGenericString));
      for (Method m : ordered) {
        String description = describe(type, m);
        HandlerCall.BeanMethod.Argument[] arguments = arguments(m, description);
        JsonPayloads payloads = null;
        if (Arrays.asList(arguments).contains(HandlerCall.BeanMethod.Argument.JSON)) {
          if (json[0] == null) {
            json[0] = new JsonPayloads(beans);
          }
          payloads = json[0];
        }
        add(sources, configured, methods.get(m),
            new HandlerCall.BeanMethod(beans, name, m, arguments, payloads, description));
      }
    }
    return new WebhookHandlerTable(sources);
  }

  /** The inbox handler of each source that has at least one {@link WebhookHandler}. */
  Map<String, InboxHandler> handlers() {
    return Map.copyOf(sources);
  }

  private static void add(Map<String, Dispatch> sources, Collection<String> configured,
      WebhookHandler annotation, HandlerCall call) {
    String source = annotation.source();
    if (!configured.contains(source)) {
      throw new WebhookHandlerException(call.toString(), "@WebhookHandler(source = \""
          + source + "\") on " + call + " names a source that oncely.webhooks.sources does not"
          + " configure (configured: " + (configured.isEmpty() ? "none"
              : String.join(", ", configured)) + ")");
    }
    Dispatch d = sources.computeIfAbsent(source, Dispatch::new);
    if (annotation.type().length == 0) {
      if (d.other != null) {
        throw new WebhookHandlerException(call.toString(), "source " + source + " has two"
            + " handlers without types (for every type): " + d.other + " and " + call
            + "; name the types of one");
      }
      d.other = call;
      return;
    }
    for (String type : annotation.type()) {
      if (type.isBlank()) {
        throw new WebhookHandlerException(call.toString(), "@WebhookHandler on " + call
            + " names a blank type; leave type out to handle every type");
      }
      HandlerCall before = d.byType.putIfAbsent(type, call);
      if (before != null) {
        throw new WebhookHandlerException(call.toString(), "type " + type + " of source "
            + source + " has two handlers: " + before + " and " + call + "; one type has one"
            + " handler");
      }
    }
  }

  private static HandlerCall.BeanMethod.Argument[] arguments(Method m, String description) {
    Class<?>[] types = m.getParameterTypes();
    HandlerCall.BeanMethod.Argument[] out = new HandlerCall.BeanMethod.Argument[types.length];
    for (int i = 0; i < types.length; i++) {
      if (types[i] == InboxMessage.class) {
        out[i] = HandlerCall.BeanMethod.Argument.MESSAGE;
      } else if (types[i].getName().equals(JsonPayloads.NODE)) {
        out[i] = HandlerCall.BeanMethod.Argument.JSON;
      } else {
        throw new WebhookHandlerException(description, "the @WebhookHandler method "
            + description + " takes a " + types[i].getName() + "; a handler method takes"
            + " InboxMessage and tools.jackson.databind.JsonNode parameters only");
      }
    }
    return out;
  }

  private static String describe(Class<?> type, Method m) {
    return type.getName() + "." + m.getName() + Arrays.stream(m.getParameterTypes())
        .map(Class::getSimpleName).collect(Collectors.joining(", ", "(", ")"));
  }

  /**
   * The inbox handler of one source: runs the handler of the message's type, else the one
   * without types, else nothing (the message is handled: senders ask receivers to acknowledge
   * the types they do not handle).
   */
  static final class Dispatch implements InboxHandler {
    private final String source;
    private final Map<String, HandlerCall> byType = new LinkedHashMap<>();
    private @Nullable HandlerCall other;

    Dispatch(String source) {
      this.source = source;
    }

    /** The handler a message of {@code type} goes to, or null. */
    @Nullable HandlerCall handlerOf(@Nullable String type) {
      HandlerCall call = type == null ? null : byType.get(type);
      return call != null ? call : other;
    }

    @Override
    public void handle(InboxMessage message) throws Exception {
      HandlerCall call = handlerOf(message.type());
      if (call == null) {
        LOG.fine(() -> "no @WebhookHandler of source " + source + " handles type "
            + message.type() + "; " + message.id().safeKey() + " is handled with nothing done");
        return;
      }
      call.call(message);
    }

    @Override
    public String toString() {
      return "webhook handlers of " + source + " " + byType.keySet()
          + (other == null ? "" : " and every other type");
    }
  }
}
