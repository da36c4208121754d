package dev.oncely.spring.boot.webhooks;

import dev.oncely.spring.boot.internal.OwnStore;

/** The inbox store the {@code oncely.webhooks.store.*} properties name. */
final class InboxStores {
  private InboxStores() {}

  static OwnStore own(OncelyWebhooksProperties properties) {
    OncelyWebhooksProperties.Store store = properties.getStore();
    return new OwnStore("oncely.webhooks.store", "inbox messages", store.getEngine(),
        store.getPath(), store.getSchema(), store.isMigrate());
  }
}
