package dev.oncely.spring.boot.server;

import dev.oncely.spring.boot.internal.OwnStore;

/** The receipt store the {@code oncely.server.store.*} properties name. */
final class ReceiptStores {
  private ReceiptStores() {}

  static OwnStore own(OncelyServerProperties properties) {
    OncelyServerProperties.Store store = properties.getStore();
    return new OwnStore("oncely.server.store", "receipts", store.getEngine(), store.getPath(),
        store.getSchema(), store.isMigrate());
  }
}
