package dev.oncely.spring.boot.webhooks;

import dev.oncely.server.inbox.InboxHandler;
import dev.oncely.server.inbox.InboxMessage;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ReflectionUtils;

/**
 * One {@link WebhookHandler}: a bean's method or an {@link InboxHandler} bean, found by its bean
 * name before the bean exists and resolved on its first call (the workers start once the context
 * has refreshed, so every singleton exists by then).
 */
abstract class HandlerCall {
  private final String description;

  HandlerCall(String description) {
    this.description = description;
  }

  /** Runs the handler on {@code message}. */
  abstract void call(InboxMessage message) throws Exception;

  /** The method or bean, as reports name it. */
  @Override
  public String toString() {
    return description;
  }

  /** An {@link InboxHandler} bean. */
  static final class Bean extends HandlerCall {
    private final BeanFactory beans;
    private final String name;
    private volatile @Nullable InboxHandler handler;

    Bean(BeanFactory beans, String name, String description) {
      super(description);
      this.beans = beans;
      this.name = name;
    }

    @Override
    void call(InboxMessage message) throws Exception {
      InboxHandler h = handler;
      if (h == null) {
        h = beans.getBean(name, InboxHandler.class);
        handler = h;
      }
      h.handle(message);
    }
  }

  /** A {@link WebhookHandler} method of a bean. */
  static final class BeanMethod extends HandlerCall {
    /** What each parameter is given. */
    enum Argument { MESSAGE, JSON }

    private final BeanFactory beans;
    private final String name;
    private final Method method;
    private final Argument[] arguments;
    private final @Nullable JsonPayloads json;
    private volatile @Nullable Target target;

    private record Target(Object bean, Method method) {}

    BeanMethod(BeanFactory beans, String name, Method method, Argument[] arguments,
        @Nullable JsonPayloads json, String description) {
      super(description);
      this.beans = beans;
      this.name = name;
      this.method = method;
      this.arguments = arguments.clone();
      this.json = json;
    }

    @Override
    void call(InboxMessage message) throws Exception {
      Target t = target;
      if (t == null) {
        Object bean = beans.getBean(name);
        // A JDK proxy (an interface-based @Transactional bean) has the interface's method, not
        // the class's: call the one the proxy implements, so its advice runs.
        Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
        ReflectionUtils.makeAccessible(invocable);
        t = new Target(bean, invocable);
        target = t;
      }
      Object[] args = new Object[arguments.length];
      for (int i = 0; i < args.length; i++) {
        args[i] = arguments[i] == Argument.MESSAGE ? message
            : Objects.requireNonNull(json).parse(message);
      }
      try {
        t.method().invoke(t.bean(), args);
      } catch (InvocationTargetException e) {
        Throwable thrown = e.getCause();
        if (thrown instanceof Exception ex) {
          throw ex;
        }
        if (thrown instanceof Error err) {
          throw err;
        }
        throw e;
      }
    }
  }
}
