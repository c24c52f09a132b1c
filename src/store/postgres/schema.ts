/**
 * The PostgreSQL schema (docs/fleet.md): every table of the store except SQLite's
 * own bookkeeping of its history engine, with the same names and columns as their SQLite counterparts in ../sqlite/schema.ts
 * (drizzle keeps one schema module per dialect; test/store/postgres/schema-drift.test.ts
 * compares the two). `npx drizzle-kit generate --config drizzle.pg.config.ts`
 * writes a migration from it into ./migrations.
 *
 * Timestamps are milliseconds since the epoch in `bigint` columns, as SQLite's
 * integers; ids are identity columns. Two columns are PostgreSQL's alone:
 * webhook_deliveries.lease_owner and lease_until (several processes share the
 * outbox, webhook-store.ts), and the rate_limits table (counters shared by the
 * central processes; one process on SQLite keeps them in memory, ../memory-rate-limits.ts).
 *
 * What drizzle cannot say is added to the generated SQL before it is committed:
 * history_blocks is partitioned by month of start_s (migration 0000), so retention
 * drops whole partitions; the partitions themselves are created on demand
 * (partitions.ts).
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  customType,
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import type { ModbusProtocol } from "../../lib/inventory.ts";
import type { RegisterWriteResult } from "../../lib/register-write.ts";
import type { AdminRole } from "../contract/admin.ts";
import type { AlertRequestAction, AlertSeverity, AlertStatus } from "../contract/alerts.ts";
import type { GatewayStatus } from "../contract/gateways.ts";
import type { ApiKeyKind } from "../contract/keys.ts";
import type { DeliveryStatus, EndpointStatus } from "../contract/webhooks.ts";

const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => "bytea" });

/**
 * Closed periods (UTC days) as encoded blocks (../codec/block.ts), one or more per
 * register and period. Keyed by (register_id, start_s) so a page reads one
 * register's blocks in time order from the key; partitioned by month of start_s.
 */
export const historyBlocks = pgTable(
  "history_blocks",
  {
    period: integer("period").notNull(),
    registerId: integer("register_id").notNull(),
    /** Stored seconds (readingEpochMs) of the block's first reading. */
    startSeconds: integer("start_s").notNull(),
    lastSeconds: integer("last_s").notNull(),
    count: integer("count").notNull(),
    data: bytea("data").notNull(),
  },
  (table) => [primaryKey({ columns: [table.registerId, table.startSeconds] })],
);

/**
 * Readings not yet compacted into blocks, as forwarded: one row per (register,
 * second); the key makes a resent batch store nothing twice (the first value wins).
 */
export const historyTail = pgTable(
  "history_tail",
  {
    registerId: integer("register_id").notNull(),
    epochSeconds: integer("ts_s").notNull(),
    rawValue: doublePrecision("raw_value"),
    /** The reading's storage-period aggregate (docs/api.md section 4.6); null when none is known yet. */
    rawMin: doublePrecision("raw_min"),
    rawMax: doublePrecision("raw_max"),
    rawMean: doublePrecision("raw_mean"),
    samples: integer("samples"),
  },
  (table) => [primaryKey({ columns: [table.registerId, table.epochSeconds] })],
);

/** Milliseconds since the epoch, read as a JavaScript number. */
const ms = (name: string) => bigint(name, { mode: "number" });

/**
 * Organisations, as on SQLite (../sqlite/schema.ts): here so far for the tables that
 * refer to them; the inventory sync that fills them comes with step 2 (docs/fleet.md).
 */
export const organizations = pgTable("organizations", {
  id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
  uuid: text("uuid").notNull().unique(),
  key: text("key").notNull().unique(),
  name: text("name").notNull(),
  createdAt: ms("created_at").notNull(),
  writesEnabled: boolean("writes_enabled").notNull().default(false),
  removedAt: ms("removed_at"),
});

/** The event outbox (docs/api.md section 6), as on SQLite. */
export const events = pgTable(
  "events",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    messageId: text("message_id").notNull().unique(),
    orgId: integer("org_id")
      .notNull()
      .references(() => organizations.id),
    type: text("type").notNull(),
    occurredAt: ms("occurred_at").notNull(),
    /** The event's `data` object as JSON text: the bytes signed are the bytes stored. */
    data: text("data").notNull(),
  },
  (table) => [index("events_org_occurred").on(table.orgId, table.occurredAt)],
);

export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    uuid: text("uuid").notNull().unique(),
    orgId: integer("org_id")
      .notNull()
      .references(() => organizations.id),
    url: text("url").notNull(),
    description: text("description"),
    eventTypes: text("event_types").notNull().default(""),
    status: text("status").$type<EndpointStatus>().notNull().default("enabled"),
    pausedAt: ms("paused_at"),
    pauseReason: text("pause_reason"),
    secret: text("secret").notNull(),
    previousSecret: text("previous_secret"),
    previousSecretUntil: ms("previous_secret_until"),
    failedMessagesInRow: integer("failed_messages_in_row").notNull().default(0),
    createdAt: ms("created_at").notNull(),
    deletedAt: ms("deleted_at"),
    /** Deliveries a second at most (docs/webhooks.md, "Pacing"); null: unlimited. */
    rateLimitPerS: integer("rate_limit_per_s"),
  },
  (table) => [index("webhook_endpoints_org").on(table.orgId)],
);

/**
 * One message to one endpoint, as on SQLite, plus its lease: a process that takes
 * the message for an attempt writes its own id and the lease's end; others skip it
 * until the lease has passed (docs/fleet.md, "Webhook leases").
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    endpointId: integer("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id),
    status: text("status").$type<DeliveryStatus>().notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: ms("next_attempt_at"),
    createdAt: ms("created_at").notNull(),
    completedAt: ms("completed_at"),
    /** The process (store instance) holding the message for an attempt; null when none. */
    leaseOwner: text("lease_owner"),
    /** Until when that claim holds (ms); afterwards another process may take the message. */
    leaseUntil: ms("lease_until"),
  },
  (table) => [
    index("webhook_deliveries_due").on(table.status, table.nextAttemptAt),
    index("webhook_deliveries_endpoint").on(table.endpointId, table.id),
    index("webhook_deliveries_endpoint_due").on(table.endpointId, table.status, table.nextAttemptAt),
    // pruneLog's event check: is any message still referring to this event.
    index("webhook_deliveries_event").on(table.eventId),
  ],
);

export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    deliveryId: integer("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id),
    attemptedAt: ms("attempted_at").notNull(),
    statusCode: integer("status_code"),
    durationMs: integer("duration_ms").notNull(),
    error: text("error"),
    responseExcerpt: text("response_excerpt"),
  },
  (table) => [index("webhook_attempts_delivery").on(table.deliveryId)],
);

/**
 * Requests counted per bucket (an API key, or a client address) and minute window
 * (docs/api.md section 8), shared by every central process: one upsert per request.
 * Windows that ended are deleted by the first take of a new window (rate-limit-store.ts).
 */
export const rateLimits = pgTable(
  "rate_limits",
  {
    bucket: text("bucket").notNull(),
    windowStart: ms("window_start").notNull(),
    count: integer("count").notNull(),
  },
  (table) => [primaryKey({ columns: [table.bucket, table.windowStart] })],
);

/*
 * The inventory, alerts, keys, admin accounts and register writes (step 2,
 * docs/fleet.md): the same tables as on SQLite, with the same foreign keys (no
 * cascade: a referenced row cannot be deleted, on either engine).
 */

export const customers = pgTable(
  "customers",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    uuid: text("uuid").notNull().unique(),
    orgId: integer("org_id")
      .notNull()
      .references(() => organizations.id),
    key: text("key").notNull(),
    name: text("name").notNull(),
    city: text("city"),
  },
  (table) => [uniqueIndex("customers_org_key").on(table.orgId, table.key)],
);

export const deviceTemplates = pgTable(
  "device_templates",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    uuid: text("uuid").notNull().unique(),
    brand: text("brand").notNull(),
    model: text("model").notNull(),
  },
  (table) => [uniqueIndex("device_templates_brand_model").on(table.brand, table.model)],
);

export const gateways = pgTable(
  "gateways",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    uuid: text("uuid").notNull().unique(),
    orgId: integer("org_id")
      .notNull()
      .references(() => organizations.id),
    customerId: integer("customer_id").references(() => customers.id),
    serial: text("serial").notNull().unique(),
    name: text("name").notNull(),
    status: text("status").$type<GatewayStatus>().notNull().default("pending"),
    firmwareVer: text("firmware_ver"),
    ipEth: text("ip_eth"),
    ipWifi: text("ip_wifi"),
    ip4g: text("ip_4g"),
    signal4g: integer("signal_4g"),
    lastSeen: ms("last_seen"),
    heartbeatMs: integer("heartbeat_ms").notNull(),
    createdAt: ms("created_at").notNull(),
    claimedAt: ms("claimed_at"),
    retiredAt: ms("retired_at"),
    /** The site that forwards this gateway (as ../sqlite/schema.ts); null for the central's own config. */
    edgeSite: text("edge_site"),
  },
  (table) => [index("gateways_org_last_seen").on(table.orgId, table.lastSeen)],
);

export const modbusDevices = pgTable(
  "modbus_devices",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    uuid: text("uuid").notNull().unique(),
    gatewayId: integer("gateway_id")
      .notNull()
      .references(() => gateways.id),
    name: text("name"),
    slaveId: integer("slave_id").notNull(),
    protocol: text("protocol").$type<ModbusProtocol>().notNull(),
    ipAddress: text("ip_address"),
    port: integer("port"),
    pollIntervalMs: integer("poll_interval_ms"),
    storageIntervalMs: integer("storage_interval_ms"),
    templateId: integer("template_id").references(() => deviceTemplates.id),
    position: integer("position").notNull(),
    retiredAt: ms("retired_at"),
    /**
     * When its `modbus_device.offline` was recorded, until its `modbus_device.online`; null
     * otherwise: a restart neither repeats nor misses either (ingest/modbus-device-status.ts).
     */
    offlineAnnouncedAt: ms("offline_announced_at"),
  },
  (table) => [index("modbus_devices_gateway").on(table.gatewayId)],
);

export const registers = pgTable(
  "registers",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    uuid: text("uuid").notNull().unique(),
    gatewayId: integer("gateway_id")
      .notNull()
      .references(() => gateways.id),
    modbusDeviceId: integer("modbus_device_id")
      .notNull()
      .references(() => modbusDevices.id),
    name: text("name").notNull(),
    address: integer("address").notNull(),
    functionCode: integer("function_code"),
    dataType: text("data_type").notNull(),
    unit: text("unit"),
    scaleFactor: doublePrecision("scale_factor"),
    isWritable: boolean("is_writable").notNull().default(false),
    writeMin: doublePrecision("write_min"),
    writeMax: doublePrecision("write_max"),
    description: text("description"),
    /** The latest value read and its time (ms): written directly, as every central process reads them (latest-values.ts). */
    latestRawValue: doublePrecision("latest_raw_value"),
    latestTs: ms("latest_ts"),
    latestText: text("latest_text"),
    position: integer("position").notNull(),
    retiredAt: ms("retired_at"),
    /** Its own poll group's interval (config `poll_interval_ms`); null: its device's. Last, where its migration added it. */
    pollIntervalMs: integer("poll_interval_ms"),
  },
  (table) => [index("registers_gateway").on(table.gatewayId)],
);

export const alerts = pgTable(
  "alerts",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    uuid: text("uuid").notNull().unique(),
    orgId: integer("org_id")
      .notNull()
      .references(() => organizations.id),
    gatewayId: integer("gateway_id").references(() => gateways.id),
    ruleId: text("rule_id"),
    severity: text("severity").$type<AlertSeverity>().notNull(),
    message: text("message").notNull(),
    status: text("status").$type<AlertStatus>().notNull(),
    value: doublePrecision("value"),
    createdAt: ms("created_at").notNull(),
    lastTriggeredAt: ms("last_triggered_at"),
    returnedAt: ms("returned_at"),
    ackAt: ms("ack_at"),
    ackNote: text("ack_note"),
    resolvedAt: ms("resolved_at"),
    resolveNote: text("resolve_note"),
    entryCount: integer("entry_count").notNull().default(1),
    edgeEventSeq: bigint("edge_event_seq", { mode: "number" }),
    requestedAction: text("requested_action").$type<AlertRequestAction>(),
    requestedNote: text("requested_note"),
    requestedAt: ms("requested_at"),
    /** The register a rule's alert concerns; null for an offline alert and for alerts older than the column. */
    registerId: integer("register_id").references(() => registers.id),
  },
  (table) => [
    index("alerts_org_triggered").on(table.orgId, table.lastTriggeredAt),
    // The rules engine's lookup of the alert open for a rule and gateway (alert-store.ts, trigger).
    index("alerts_rule_gateway").on(table.ruleId, table.gatewayId),
  ],
);

export const apiKeys = pgTable("api_keys", {
  id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
  uuid: text("uuid").notNull().unique(),
  orgId: integer("org_id")
    .notNull()
    .references(() => organizations.id),
  name: text("name").notNull(),
  prefix: text("prefix").notNull(),
  /** SHA-256 of the whole key, hex; the key itself is never stored. */
  hash: text("hash").notNull().unique(),
  scopes: text("scopes").notNull(),
  kind: text("kind").$type<ApiKeyKind>().notNull().default("standard"),
  rateLimitPerMinute: integer("rate_limit_per_minute"),
  createdAt: ms("created_at").notNull(),
  expiresAt: ms("expires_at"),
  revokedAt: ms("revoked_at"),
  lastUsedAt: ms("last_used_at"),
});

/** Sites' edge tokens (docs/fleet.md), as ../sqlite/schema.ts: the SHA-256 of a token, never the token. */
export const edgeTokens = pgTable(
  "edge_tokens",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    uuid: text("uuid").notNull().unique(),
    orgId: integer("org_id")
      .notNull()
      .references(() => organizations.id),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    hash: text("hash").notNull().unique(),
    createdAt: ms("created_at").notNull(),
    revokedAt: ms("revoked_at"),
    lastUsedAt: ms("last_used_at"),
  },
  (table) => [uniqueIndex("edge_tokens_live_name").on(table.orgId, table.name).where(sql`${table.revokedAt} IS NULL`)],
);

/** Small settings the store keeps for itself: named secrets (the cursor key every process signs with), the setup token's hash. */
export const storeMeta = pgTable("store_meta", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

export const adminUsers = pgTable("admin_users", {
  id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
  username: text("username").notNull().unique(),
  passwordHash: text("password_hash").notNull(),
  role: text("role").$type<AdminRole>().notNull(),
  createdAt: ms("created_at").notNull(),
});

export const adminSessions = pgTable(
  "admin_sessions",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tokenHash: text("token_hash").notNull().unique(),
    userId: integer("user_id")
      .notNull()
      .references(() => adminUsers.id),
    csrfToken: text("csrf_token").notNull(),
    createdAt: ms("created_at").notNull(),
    expiresAt: ms("expires_at").notNull(),
    revokedAt: ms("revoked_at"),
  },
  (table) => [index("admin_sessions_user").on(table.userId)],
);

/** As SQLite's: a register's write, or a device's write through the Modbus TCP server (exactly one target). */
export const registerWrites = pgTable(
  "register_writes",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    uuid: text("uuid").notNull().unique(),
    orgId: integer("org_id")
      .notNull()
      .references(() => organizations.id),
    registerId: integer("register_id").references(() => registers.id),
    actor: text("actor").notNull(),
    valueBefore: doublePrecision("value_before"),
    valueAsked: doublePrecision("value_asked"),
    result: text("result").$type<RegisterWriteResult>().notNull(),
    readBack: doublePrecision("read_back"),
    detail: text("detail"),
    requestedAt: ms("requested_at").notNull(),
    finishedAt: ms("finished_at").notNull(),
    // Added columns go last, where ALTER TABLE puts them (migrations.test.ts compares the order).
    modbusDeviceId: integer("modbus_device_id").references(() => modbusDevices.id),
    functionCode: integer("function_code"),
    address: integer("address"),
    valuesWritten: text("values_written"),
  },
  (table) => [
    index("register_writes_org_requested").on(table.orgId, table.requestedAt),
    check("register_writes_one_target", sql`(register_id IS NULL) <> (modbus_device_id IS NULL)`),
  ],
);
