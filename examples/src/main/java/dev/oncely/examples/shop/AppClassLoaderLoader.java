package dev.oncely.examples.shop;

import java.beans.PropertyChangeListener;
import org.apache.catalina.Context;
import org.apache.catalina.Loader;

/**
 * Runs the shop's servlets on the application's own class loader instead of a per-webapp one:
 * the shop is one embedded application, not a deployable war, so there is nothing to isolate or
 * reload. Tomcat's webapp loader would also report the server half's lease-renewal thread and the
 * provider client's threads (started on request threads, outliving Tomcat until the shop closes
 * them) as memory leaks on every stop.
 */
final class AppClassLoaderLoader implements Loader {
  private Context context;

  @Override
  public void backgroundProcess() {}

  @Override
  public ClassLoader getClassLoader() {
    return Shop.class.getClassLoader();
  }

  @Override
  public Context getContext() {
    return context;
  }

  @Override
  public void setContext(Context context) {
    this.context = context;
  }

  @Override
  public boolean getDelegate() {
    return true;
  }

  @Override
  public void setDelegate(boolean delegate) {}

  @Override
  public void addPropertyChangeListener(PropertyChangeListener listener) {}

  @Override
  public boolean modified() {
    return false;
  }

  @Override
  public void removePropertyChangeListener(PropertyChangeListener listener) {}
}
