-- Oncely intent store, schema version 1. Flyway-compatible name: apply it with Flyway
-- (locations=classpath:db/oncely) or with PostgresIntentStore.migrate(dataSource), not both.
--
-- One row per intent. "record" holds the RecordCodec bytes (checksummed, optionally encrypted):
-- it is the only source of truth. The other columns are derived from the record on every write so
-- operators can query with psql and the store can index due work; the idempotency key itself is
-- never stored in clear, only its SHA-256 lookup hash.
CREATE TABLE oncely_intent (
  lookup       bytea       PRIMARY KEY,   -- SHA-256 of scope, operation and key (RecordCodec.lookupKey)
  scope        text        NOT NULL,
  operation    text        NOT NULL,
  business_id  text,                      -- the app's business id (order id), or NULL
  state        text        NOT NULL,      -- NEW, IN_FLIGHT, PENDING, COMPLETED, REJECTED, KEY_CONFLICT, NEEDS_RECONCILIATION
  revision     bigint      NOT NULL,      -- the record's revision: the compare-and-set fencing token
  attempts     integer     NOT NULL,
  due_at       timestamptz,               -- when the scheduler drives it next; NULL when finished or waiting for reconciliation
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,      -- finished: purge time; unfinished: the server's key retention ends
  lease_owner  text,                      -- the instance driving it, while its lease holds
  lease_until  timestamptz,               -- database time the lease ends unless renewed
  record       bytea       NOT NULL,
  CONSTRAINT oncely_intent_business_unique UNIQUE (scope, operation, business_id),
  CONSTRAINT oncely_intent_state_known CHECK (state IN ('NEW', 'IN_FLIGHT', 'PENDING', 'COMPLETED',
      'REJECTED', 'KEY_CONFLICT', 'NEEDS_RECONCILIATION'))
);

-- Due work, earliest first: the claim query walks only unfinished rows.
CREATE INDEX oncely_intent_due ON oncely_intent (due_at) WHERE due_at IS NOT NULL;
-- listUnfinished(), oldest first.
CREATE INDEX oncely_intent_unfinished ON oncely_intent (created_at)
  WHERE state NOT IN ('COMPLETED', 'REJECTED', 'KEY_CONFLICT');
-- purgeExpired().
CREATE INDEX oncely_intent_expiry ON oncely_intent (expires_at)
  WHERE state IN ('COMPLETED', 'REJECTED', 'KEY_CONFLICT');
-- Lease renewal by owner.
CREATE INDEX oncely_intent_lease ON oncely_intent (lease_owner) WHERE lease_owner IS NOT NULL;
