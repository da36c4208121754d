-- Oncely intent store, schema version 2: the store's own metadata.
--
-- "encrypted" (one byte, 1 when the records are sealed with StoreEncryption) and "canary" (a fixed
-- record in RecordCodec bytes, written with the fleet's encryption setting). The first store
-- instance that opens the schema writes both rows; every instance checks them before it writes,
-- so an instance with a wrong or missing key is refused at start-up instead of writing records
-- nobody else can read. The rows are written by the store, never by this script: only the app
-- holds the key.
CREATE TABLE oncely_meta (
  name   text  PRIMARY KEY,
  value  bytea NOT NULL
);
