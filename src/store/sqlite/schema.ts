/**
 * The store's tables. Timestamps are integer milliseconds since the epoch (UTC);
 * public ids are UUID text, internal joins use the integer primary keys so the big
 * tables stay compact.
 */

import { sql } from "drizzle-orm";
import { blob, check, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { modbusProtocols } from "../../lib/inventory.ts";
import { registerWriteResults } from "../../lib/register-write.ts";
import { adminRoles } from "../contract/admin.ts";
import { alertRequestActions, alertSeverities, alertStatuses } from "../contract/alerts.ts";
import { gatewayStatuses } from "../contract/gateways.ts";
import { apiKeyKinds } from "../contract/keys.ts";
import { deliveryStatuses, endpointStatuses } from "../contract/webhooks.ts";

export const organizations = sqliteTable("organizations", {
  id: integer("id").primaryKey(),
  uuid: text("uuid").notNull().unique(),
  /** Handle used in config and on the CLI (`--org`). */
  key: text("key").notNull().unique(),
  name: text("name").notNull(),
  createdAt: integer("created_at").notNull(),
  /** Register writes through the API allowed (config `writes_enabled`; docs/api.md section 5.8). */
  writesEnabled: integer("writes_enabled", { mode: "boolean" }).notNull().default(false),
  /**
   * When the organisation left the config. A removed row keeps its history but
   * gives up its key and uuid (suffixed `#removed-<id>`), so the same key added
   * again is a new organisation that inherits none of its keys or endpoints.
   */
  removedAt: integer("removed_at"),
});

export const customers = sqliteTable(
  "customers",
  {
    id: integer("id").primaryKey(),
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

export const deviceTemplates = sqliteTable(
  "device_templates",
  {
    id: integer("id").primaryKey(),
    uuid: text("uuid").notNull().unique(),
    brand: text("brand").notNull(),
    model: text("model").notNull(),
  },
  (table) => [uniqueIndex("device_templates_brand_model").on(table.brand, table.model)],
);

export const gateways = sqliteTable(
  "gateways",
  {
    id: integer("id").primaryKey(),
    uuid: text("uuid").notNull().unique(),
    orgId: integer("org_id")
      .notNull()
      .references(() => organizations.id),
    customerId: integer("customer_id").references(() => customers.id),
    serial: text("serial").notNull().unique(),
    name: text("name").notNull(),
    status: text("status", { enum: gatewayStatuses }).notNull().default("pending"),
    firmwareVer: text("firmware_ver"),
    ipEth: text("ip_eth"),
    ipWifi: text("ip_wifi"),
    ip4g: text("ip_4g"),
    signal4g: integer("signal_4g"),
    lastSeen: integer("last_seen"),
    heartbeatMs: integer("heartbeat_ms").notNull(),
    createdAt: integer("created_at").notNull(),
    claimedAt: integer("claimed_at"),
    /** Set when the gateway left the config; kept so its history stays readable. */
    retiredAt: integer("retired_at"),
    /**
     * On a central: the site (edge token name, docs/fleet.md) that forwards this
     * gateway and alone may change it; null for a gateway of this box's own config.
     */
    edgeSite: text("edge_site"),
  },
  (table) => [index("gateways_org_last_seen").on(table.orgId, table.lastSeen)],
);

export const modbusDevices = sqliteTable(
  "modbus_devices",
  {
    id: integer("id").primaryKey(),
    uuid: text("uuid").notNull().unique(),
    gatewayId: integer("gateway_id")
      .notNull()
      .references(() => gateways.id),
    name: text("name"),
    slaveId: integer("slave_id").notNull(),
    protocol: text("protocol", { enum: modbusProtocols }).notNull(),
    ipAddress: text("ip_address"),
    port: integer("port"),
    pollIntervalMs: integer("poll_interval_ms"),
    /** At most one stored reading per register per this period (ms); null on rows synced before it was kept. */
    storageIntervalMs: integer("storage_interval_ms"),
    templateId: integer("template_id").references(() => deviceTemplates.id),
    /** Order in the config file, so API lists follow it. */
    position: integer("position").notNull(),
    retiredAt: integer("retired_at"),
    /**
     * When its `modbus_device.offline` was recorded, until its `modbus_device.online`; null
     * otherwise: a restart neither repeats nor misses either (ingest/modbus-device-status.ts).
     */
    offlineAnnouncedAt: integer("offline_announced_at"),
  },
  (table) => [index("modbus_devices_gateway").on(table.gatewayId)],
);

export const registers = sqliteTable(
  "registers",
  {
    id: integer("id").primaryKey(),
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
    scaleFactor: real("scale_factor"),
    isWritable: integer("is_writable", { mode: "boolean" }).notNull().default(false),
    /** A writable register's bounds in engineering units (config `min`, `max`). */
    writeMin: real("write_min"),
    writeMax: real("write_max"),
    description: text("description"),
    latestRawValue: real("latest_raw_value"),
    latestTs: integer("latest_ts"),
    /** A `string` register's text: written only when it changes (it adds no readings rows). */
    latestText: text("latest_text"),
    position: integer("position").notNull(),
    retiredAt: integer("retired_at"),
    /** Its own poll group's interval (config `poll_interval_ms`); null: its device's. Last, where its migration added it. */
    pollIntervalMs: integer("poll_interval_ms"),
  },
  (table) => [index("registers_gateway").on(table.gatewayId)],
);

export const alerts = sqliteTable(
  "alerts",
  {
    id: integer("id").primaryKey(),
    uuid: text("uuid").notNull().unique(),
    orgId: integer("org_id")
      .notNull()
      .references(() => organizations.id),
    gatewayId: integer("gateway_id").references(() => gateways.id),
    ruleId: text("rule_id"),
    severity: text("severity", { enum: alertSeverities }).notNull(),
    message: text("message").notNull(),
    status: text("status", { enum: alertStatuses }).notNull(),
    value: real("value"),
    createdAt: integer("created_at").notNull(),
    lastTriggeredAt: integer("last_triggered_at"),
    returnedAt: integer("returned_at"),
    ackAt: integer("ack_at"),
    ackNote: text("ack_note"),
    resolvedAt: integer("resolved_at"),
    resolveNote: text("resolve_note"),
    entryCount: integer("entry_count").notNull().default(1),
    /**
     * On a central, an alert forwarded by a site: the site's sequence number of the
     * last of its events applied (docs/fleet.md, "Alerts"); null elsewhere.
     */
    edgeEventSeq: integer("edge_event_seq"),
    /** On a central, an acknowledge or resolve asked of the site that owns the alert, until the site applies it. */
    requestedAction: text("requested_action", { enum: alertRequestActions }),
    requestedNote: text("requested_note"),
    requestedAt: integer("requested_at"),
    /**
     * The register a rule's alert concerns (its events name it); null for an offline
     * alert, and for alerts opened before this column existed.
     */
    registerId: integer("register_id").references(() => registers.id),
  },
  (table) => [
    // GET /alerts: most recently triggered first, within one organisation
    // (last_triggered_at is set when an alert opens, so it orders every alert).
    index("alerts_org_triggered").on(table.orgId, table.lastTriggeredAt),
  ],
);

export const apiKeys = sqliteTable("api_keys", {
  id: integer("id").primaryKey(),
  uuid: text("uuid").notNull().unique(),
  orgId: integer("org_id")
    .notNull()
    .references(() => organizations.id),
  name: text("name").notNull(),
  /** First characters of the key, shown to tell keys apart; the key itself is never stored. */
  prefix: text("prefix").notNull(),
  /** SHA-256 of the whole key, hex. */
  hash: text("hash").notNull().unique(),
  /** Space-separated scopes. */
  scopes: text("scopes").notNull(),
  kind: text("kind", { enum: apiKeyKinds }).notNull().default("standard"),
  /**
   * Requests per minute (for a sandbox key, per client address); null follows the
   * server's default (config `api.rate_limit_per_minute`).
   */
  rateLimitPerMinute: integer("rate_limit_per_minute"),
  createdAt: integer("created_at").notNull(),
  expiresAt: integer("expires_at"),
  revokedAt: integer("revoked_at"),
  /** When a request last passed with this key, to the minute (written at most once a minute per key). */
  lastUsedAt: integer("last_used_at"),
});

/**
 * Edge tokens (docs/fleet.md): what a site box presents to a central, one per
 * site, bound to one organisation. Like API keys, only a SHA-256 of the token is
 * kept, with a short prefix to tell tokens apart.
 */
export const edgeTokens = sqliteTable(
  "edge_tokens",
  {
    id: integer("id").primaryKey(),
    uuid: text("uuid").notNull().unique(),
    orgId: integer("org_id")
      .notNull()
      .references(() => organizations.id),
    /** The site's name, unique among the organisation's tokens that are not revoked. */
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    /** SHA-256 of the whole token, hex. */
    hash: text("hash").notNull().unique(),
    createdAt: integer("created_at").notNull(),
    revokedAt: integer("revoked_at"),
    /** When the site's session check last passed with this token, to the minute (the central's last contact with it). */
    lastUsedAt: integer("last_used_at"),
  },
  (table) => [uniqueIndex("edge_tokens_live_name").on(table.orgId, table.name).where(sql`${table.revokedAt} IS NULL`)],
);

/** Small settings the store keeps for itself (for example the cursor signing secret). */
export const storeMeta = sqliteTable("store_meta", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

/**
 * The event outbox (docs/api.md section 6): every event is stored here, in the same
 * transaction as the change it reports, before any delivery starts.
 */
export const events = sqliteTable(
  "events",
  {
    id: integer("id").primaryKey(),
    /** `msg_<hex>`: the webhook-id of every delivery of this event. */
    messageId: text("message_id").notNull().unique(),
    orgId: integer("org_id")
      .notNull()
      .references(() => organizations.id),
    type: text("type").notNull(),
    /** When the event happened (ms). */
    occurredAt: integer("occurred_at").notNull(),
    /** The event's `data` object, as JSON text. */
    data: text("data").notNull(),
  },
  (table) => [index("events_org_occurred").on(table.orgId, table.occurredAt)],
);

/** Webhook endpoints (docs/api.md section 6), managed from the CLI and the admin page. */
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: integer("id").primaryKey(),
    uuid: text("uuid").notNull().unique(),
    orgId: integer("org_id")
      .notNull()
      .references(() => organizations.id),
    url: text("url").notNull(),
    description: text("description"),
    /** Space-separated event types; empty means every type. */
    eventTypes: text("event_types").notNull().default(""),
    status: text("status", { enum: endpointStatuses }).notNull().default("enabled"),
    pausedAt: integer("paused_at"),
    pauseReason: text("pause_reason"),
    /** `whsec_<base64>`; kept to sign with, shown to admins on request, never logged. */
    secret: text("secret").notNull(),
    /** The secret before the last rotation, still signed with until `previous_secret_until`. */
    previousSecret: text("previous_secret"),
    previousSecretUntil: integer("previous_secret_until"),
    /** Messages in a row that failed every attempt (docs/api.md section 6: paused after ten). */
    failedMessagesInRow: integer("failed_messages_in_row").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    deletedAt: integer("deleted_at"),
    /** Deliveries a second at most (docs/webhooks.md, "Pacing"); null: unlimited. */
    rateLimitPerS: integer("rate_limit_per_s"),
  },
  (table) => [index("webhook_endpoints_org").on(table.orgId)],
);

/**
 * One message (event) to one endpoint: created with the event, in the same
 * transaction, so a message exists in the store before any delivery starts.
 * `held` while the endpoint is paused.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: integer("id").primaryKey(),
    endpointId: integer("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id),
    status: text("status", { enum: deliveryStatuses }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at"),
    createdAt: integer("created_at").notNull(),
    completedAt: integer("completed_at"),
  },
  (table) => [
    index("webhook_deliveries_endpoint").on(table.endpointId, table.id),
    // The dispatcher's per-endpoint due query (docs/webhooks.md, fairness), and every other query of
    // pending messages, endpoint by endpoint: no index on (status, next_attempt_at) across endpoints,
    // which every settle would move its message in.
    index("webhook_deliveries_endpoint_due").on(table.endpointId, table.status, table.nextAttemptAt),
  ],
);

/** Every attempt, for the delivery log (`endpoints deliveries`, the admin page). */
export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: integer("id").primaryKey(),
    deliveryId: integer("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id),
    attemptedAt: integer("attempted_at").notNull(),
    statusCode: integer("status_code"),
    durationMs: integer("duration_ms").notNull(),
    error: text("error"),
    /** The first bytes of the response body. */
    responseExcerpt: text("response_excerpt"),
  },
  (table) => [index("webhook_attempts_delivery").on(table.deliveryId)],
);

/** People who sign in to the admin page; the password is kept only as a Bun.password hash. */
export const adminUsers = sqliteTable("admin_users", {
  id: integer("id").primaryKey(),
  username: text("username").notNull().unique(),
  passwordHash: text("password_hash").notNull(),
  role: text("role", { enum: adminRoles }).notNull(),
  createdAt: integer("created_at").notNull(),
});

/** Admin page sessions: the cookie carries a random token, the store only its SHA-256. */
export const adminSessions = sqliteTable(
  "admin_sessions",
  {
    id: integer("id").primaryKey(),
    tokenHash: text("token_hash").notNull().unique(),
    userId: integer("user_id")
      .notNull()
      .references(() => adminUsers.id),
    csrfToken: text("csrf_token").notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    revokedAt: integer("revoked_at"),
  },
  (table) => [index("admin_sessions_user").on(table.userId)],
);

/**
 * Reading history in compressed blocks (history/, ../codec/). Closed periods
 * (four hours by default; a UTC day in stores made before 2026-11-27) live in `history_blocks`, one or more encoded blocks per
 * register and period. The key leads with the period, so closing a period appends
 * at the end of the B-tree (few pages written) and retention drops a key prefix.
 * WITHOUT ROWID (migration 0007): the key is the table. Blocks stay under about a
 * kilobyte so a row never spills into an overflow page.
 */
export const historyBlocks = sqliteTable(
  "history_blocks",
  {
    period: integer("period").notNull(),
    registerId: integer("register_id").notNull(),
    /** Stored seconds (readingEpochMs) of the block's first reading. */
    startSeconds: integer("start_s").notNull(),
    lastSeconds: integer("last_s").notNull(),
    count: integer("count").notNull(),
    data: blob("data", { mode: "buffer" }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.period, table.registerId, table.startSeconds] })],
);

/**
 * Readings of the periods not yet closed, in arrival order: a rowid table without
 * index, so every insert lands on the last page and a flush touches a page or two.
 * Read back once at open (../codec/tail.ts keeps them in memory by register).
 * `agg` carries the aggregate of an earlier storage period of the register (its
 * period ended when this row's came), encoded by history/tail-aggregate.ts; a row
 * that only carries one (no new reading came) says so in it.
 */
export const historyTail = sqliteTable("history_tail", {
  registerId: integer("register_id").notNull(),
  epochSeconds: integer("ts_s").notNull(),
  rawValue: real("raw_value"),
  aggregate: blob("agg", { mode: "buffer" }),
});

/**
 * One row: a counter every history write transaction raises, so a process learns
 * that another one (an import beside `serve`) changed the history it holds in memory.
 */
export const historyGeneration = sqliteTable("history_generation", {
  id: integer("id").primaryKey(),
  generation: integer("generation").notNull(),
});

/** One row: the period length blocks are cut by, and the first period still open. */
export const historyState = sqliteTable("history_state", {
  id: integer("id").primaryKey(),
  periodSeconds: integer("period_s").notNull(),
  openPeriod: integer("open_period").notNull(),
});

/**
 * The audit of register writes: every attempt through the API, the admin page or a
 * gateway's Modbus TCP server, whatever its result; pruned with the readings'
 * retention. Values are in engineering units. A write through the Modbus TCP server
 * that covers no configured register whole names its Modbus device and the request as
 * sent instead of a register (docs/polling.md): exactly one of the two is set.
 */
export const registerWrites = sqliteTable(
  "register_writes",
  {
    id: integer("id").primaryKey(),
    uuid: text("uuid").notNull().unique(),
    orgId: integer("org_id")
      .notNull()
      .references(() => organizations.id),
    registerId: integer("register_id").references(() => registers.id),
    /** Who asked: `key:<prefix>` for an API key, `user:<username>` for the admin page, `modbus:<address>` for a client of the Modbus TCP server. */
    actor: text("actor").notNull(),
    valueBefore: real("value_before"),
    /** null for a device's write. */
    valueAsked: real("value_asked"),
    result: text("result", { enum: registerWriteResults }).notNull(),
    /** What the device held after the write (or, after a timeout, at the next read). */
    readBack: real("read_back"),
    detail: text("detail"),
    requestedAt: integer("requested_at").notNull(),
    finishedAt: integer("finished_at").notNull(),
    /** A device's write: its Modbus device (register_id null). */
    modbusDeviceId: integer("modbus_device_id").references(() => modbusDevices.id),
    /** A device's write: function code (5, 6, 15, 16), first address and the values sent as a JSON array (coils 0 or 1). */
    functionCode: integer("function_code"),
    address: integer("address"),
    valuesWritten: text("values_written"),
  },
  (table) => [
    index("register_writes_org_requested").on(table.orgId, table.requestedAt),
    check("register_writes_one_target", sql`(register_id IS NULL) <> (modbus_device_id IS NULL)`),
  ],
);
