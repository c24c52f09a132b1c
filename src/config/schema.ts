/**
 * The structure of fieldhub.yaml as TypeBox schemas, in the file's own snake_case.
 *
 * Conventions (structure.ts relies on them):
 * - a field with a `default` is listed as required but a missing one is never a
 *   problem: Value.Default fills it, so Static<> already has the defaulted shape;
 * - `Type.Optional` marks fields without a default (they become null, or their
 *   default depends on other fields and is decided in normalise.ts);
 * - `patternHint` says in words what a `pattern` accepts, for the error message;
 * - `secret: true` keeps a field's value out of its error message (a token);
 * - `discriminator` marks a union whose variants are picked by that field, so a
 *   mistake is reported against the variant the user chose, not against all of them.
 * Rules that span fields (references, uniqueness, host only on TCP, what a data type
 * needs, templates) live in rules.ts and register-checks.ts (which asks
 * modbus/register-rules.ts); those of the alert rules and automations in
 * alerting-references.ts (which asks alerting/rule-checks.ts).
 */
import { type Static, type TLiteral, type TLiteralValue, type TSchema, type TUnion, Type } from "@sinclair/typebox";
import { conditions, severities } from "../alerting/rule-model.ts";
import {
  byteOrders,
  dataTypes,
  defaultFunctionCode,
  functionCodes,
  lastAddress,
  lastBit,
  maxStringLength,
  writeFunctionCodes,
} from "../modbus/register-model.ts";
import { baudRates, parities } from "./types.ts";

/** Defaults in one place: the schema uses them, and rules.ts/normalise.ts the context-dependent ones. */
export const defaults = {
  serverHost: "0.0.0.0",
  serverPort: 8080,
  readingsDays: 365,
  commitIntervalS: 10,
  uplinkCheckIntervalS: 30,
  mqttTopicPrefix: "fieldhub",
  mqttMaxIntervalS: 300,
  rateLimitPerMinute: 100,
  heartbeatS: 300,
  devicePort: 502,
  pollIntervalMs: 60_000,
  timeoutMs: 1000,
  retries: 1,
  maxRegistersPerRequest: 125,
  maxGap: 8,
  pauseMs: 0,
  storageIntervalS: 300,
  functionCode: defaultFunctionCode,
  byteOrder: "ABCD",
  baud: 9600,
  dataBits: 8,
  parity: "none",
  stopBits: 1,
  rtuOverTcpPort: 502,
  ruleSeverity: "warning",
  offlineSeverity: "critical",
  offlineName: "Gateway offline",
  modbusServerMaxConnections: 16,
} as const;

const strict = { additionalProperties: false } as const;

type Literals<T extends readonly TLiteralValue[]> = {
  -readonly [K in keyof T]: TLiteral<T[K]>;
};

/** An enum: a union of literals, reported by structure.ts as "must be one of ...". */
function oneOf<const T extends readonly TLiteralValue[]>(values: T, options: object = {}): TUnion<Literals<T>> {
  return Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  ) as unknown as TUnion<Literals<T>>;
}

function listOf<T extends TSchema>(items: T) {
  return Type.Array(items, { default: [] });
}

const text = Type.String();
const nonEmpty = Type.String({ minLength: 1 });
const port = (options: object = {}) => Type.Integer({ minimum: 1, maximum: 65535, ...options });

// uuidPattern in lib has the `i` flag, which a JSON-schema pattern cannot carry.
const uuid = Type.String({
  pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
  patternHint: "a UUID such as 0b7e6a8c-3f1d-4f2a-9c55-2d1e8b7a6c40",
});
const key = Type.String({
  pattern: "^[a-z0-9][a-z0-9_-]{0,62}$",
  patternHint: "1 to 63 lowercase letters, digits, '_' or '-', starting with a letter or digit",
});
const serial = Type.String({
  pattern: "^[A-Za-z0-9._-]{1,64}$",
  patternHint: "1 to 64 letters, digits, '.', '_' or '-'",
});

export const serverSchema = Type.Object(
  {
    host: Type.String({ minLength: 1, default: defaults.serverHost }),
    port: port({ default: defaults.serverPort }),
    // Checked as a URL in rules.ts: a pattern cannot say what is wrong with it.
    public_url: Type.Optional(nonEmpty),
  },
  { ...strict, default: {} },
);

export const retentionSchema = Type.Object(
  {
    readings_days: Type.Integer({
      minimum: 1,
      maximum: 3650,
      default: defaults.readingsDays,
    }),
  },
  { ...strict, default: {} },
);

/** How history reaches the disk (docs/config.md, docs/architecture.md "Store"). */
export const storageSchema = Type.Object(
  {
    // Readings wait in memory at most this long before one commit writes them:
    // what a power cut can lose, against how often the card is written.
    commit_interval_s: Type.Integer({ minimum: 1, maximum: 300, default: defaults.commitIntervalS }),
  },
  { ...strict, default: {} },
);

/**
 * A site's link to a central (docs/fleet.md, "Sites"): the central's URL and the
 * edge token `fieldhub edges create` printed there. The site calls out; nothing
 * calls in.
 */
export const uplinkSchema = Type.Object(
  {
    // Checked as a URL in rules.ts: a pattern cannot say what is wrong with it.
    url: nonEmpty,
    token: Type.String({
      pattern: "^fhe_[0-9a-f]{64}$",
      patternHint: "the edge token `fieldhub edges create` printed on the central: fhe_ and 64 hex digits",
      secret: true,
    }),
    check_interval_s: Type.Integer({ minimum: 1, maximum: 3600, default: defaults.uplinkCheckIntervalS }),
  },
  strict,
);

/**
 * Publishing to an MQTT broker (docs/mqtt.md). The URL's scheme and the password
 * file are checked in rules.ts (a pattern cannot say what is wrong with a URL, and a
 * file's existence is not a structure).
 */
export const mqttSchema = Type.Object(
  {
    url: nonEmpty,
    username: Type.Optional(nonEmpty),
    // One of the two, or neither (a broker without passwords): rules.ts.
    password_file: Type.Optional(nonEmpty),
    password: Type.Optional(Type.String({ minLength: 1, secret: true })),
    ca_file: Type.Optional(nonEmpty),
    // Default fieldhub-<first gateway serial>: normalise.ts.
    client_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    topic_prefix: Type.String({
      pattern: "^[^#+/\\s][^#+\\s]*[^#+/\\s]$|^[^#+/\\s]$",
      patternHint:
        "topic levels without '+', '#', spaces or a leading or trailing '/', such as fieldhub or plant/fieldhub",
      default: defaults.mqttTopicPrefix,
    }),
    qos: oneOf([0, 1], { default: 1 }),
    max_interval_s: Type.Integer({ minimum: 1, maximum: 86_400, default: defaults.mqttMaxIntervalS }),
    homeassistant: Type.Optional(
      Type.Object(
        {
          discovery_prefix: Type.String({
            pattern: "^[^#+/\\s]+$",
            patternHint: "one topic level without '+', '#', '/' or spaces, such as homeassistant",
            default: "homeassistant",
          }),
        },
        strict,
      ),
    ),
    // Sparkplug B 3.0 (docs/mqtt.md, "Sparkplug B"): each id is one topic level (Sparkplug 3.0, section 4.1.1).
    sparkplug: Type.Optional(
      Type.Object(
        {
          group_id: Type.String({
            pattern: "^[^#+/\\s]+$",
            patternHint: "one topic level without '+', '#', '/' or spaces, such as plant",
          }),
          edge_node_id: Type.String({
            pattern: "^[^#+/\\s]+$",
            patternHint: "one topic level without '+', '#', '/' or spaces, such as site-1",
          }),
        },
        strict,
      ),
    ),
  },
  strict,
);

export const apiSchema = Type.Object(
  {
    rate_limit_per_minute: Type.Integer({
      minimum: 1,
      maximum: 100_000,
      default: defaults.rateLimitPerMinute,
    }),
    // Browsers send the origin as scheme://host[:port]; a path or trailing slash never matches.
    cors_origins: Type.Array(
      Type.String({
        pattern: "^(\\*|https?://[^/\\s?#]+)$",
        patternHint: '"*" or an origin: scheme://host[:port] without a path, e.g. https://dash.example.com',
      }),
      { default: [] },
    ),
    log_requests: Type.Boolean({ default: false }),
  },
  { ...strict, default: {} },
);

/**
 * Webhook delivery (docs/api.md section 6). The spec's values are the defaults; a site
 * (or a test) may shorten the schedule, never do without it.
 */
export const webhooksSchema = Type.Object(
  {
    timeout_s: Type.Integer({ minimum: 1, maximum: 30, default: 10 }),
    retry_delays_s: Type.Array(Type.Integer({ minimum: 1, maximum: 86_400 }), {
      minItems: 1,
      maxItems: 10,
      default: [30, 120, 600, 3600, 21600],
    }),
    pause_after_failed_messages: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
    log_retention_days: Type.Integer({ minimum: 1, maximum: 3650, default: 30 }),
  },
  { ...strict, default: {} },
);

export const customerSchema = Type.Object(
  {
    key,
    id: Type.Optional(uuid),
    name: nonEmpty,
    city: Type.Optional(text),
  },
  strict,
);

export const organizationSchema = Type.Object(
  {
    key,
    id: Type.Optional(uuid),
    name: nonEmpty,
    customers: listOf(customerSchema),
    // Register writes through the API: off until enabled, docs/api.md section 5.8.
    writes_enabled: Type.Boolean({ default: false }),
  },
  strict,
);

// Longest wait between two attempts to (re)connect a bus's link: a peer that comes
// back is polled again within this (docs/polling.md). Left
// out: modbus/polling-config.ts's default (30 s).
const reconnectMaxS = Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 }));

export const tcpBusSchema = Type.Object({ type: Type.Literal("tcp"), reconnect_max_s: reconnectMaxS }, strict);

export const rtuBusSchema = Type.Object(
  {
    type: Type.Literal("rtu"),
    path: nonEmpty,
    baud: oneOf(baudRates, { default: defaults.baud }),
    data_bits: oneOf([7, 8], { default: defaults.dataBits }),
    parity: oneOf(parities, { default: defaults.parity }),
    stop_bits: oneOf([1, 2], { default: defaults.stopBits }),
    reconnect_max_s: reconnectMaxS,
  },
  strict,
);

export const rtuOverTcpBusSchema = Type.Object(
  {
    type: Type.Literal("rtu_over_tcp"),
    host: nonEmpty,
    port: port({ default: defaults.rtuOverTcpPort }),
    reconnect_max_s: reconnectMaxS,
  },
  strict,
);

export const busSchema = Type.Union([tcpBusSchema, rtuBusSchema, rtuOverTcpBusSchema], { discriminator: "type" });

/**
 * A register, or (in a device with a template) an override of the template register of
 * the same name. So only `name` is required here: `address` and `data_type` are
 * required of a register the template does not have, and bit, length and the function
 * code checked against each other, by modbus/register-rules.ts (asked by register-checks.ts). The fields an override may leave out have
 * no default here (it would replace the template's): normalise.ts applies them.
 */
export const registerSchema = Type.Object(
  {
    name: nonEmpty,
    id: Type.Optional(uuid),
    address: Type.Optional(Type.Integer({ minimum: 0, maximum: lastAddress })),
    // Default 3 (holding register): normalise.ts.
    function_code: Type.Optional(oneOf(functionCodes)),
    data_type: Type.Optional(oneOf(dataTypes)),
    // Default ABCD, or the template's byte order on a device with a template: normalise.ts.
    byte_order: Type.Optional(oneOf(byteOrders)),
    bit: Type.Optional(Type.Integer({ minimum: 0, maximum: lastBit })),
    length: Type.Optional(Type.Integer({ minimum: 1, maximum: maxStringLength })),
    unit: Type.Optional(text),
    // Non-zero is checked in rules.ts; TypeBox already refuses NaN and infinities.
    scale_factor: Type.Optional(Type.Number()),
    // A signed 16-bit register of the same device holding the scale exponent: value = raw x 10^sf,
    // read in the same cycle (docs/polling.md "Scale factors read from the device"). Checked in rules.ts.
    scale_factor_register: Type.Optional(nonEmpty),
    // The raw value that means "no value" (docs/polling.md "Not-implemented values"): read as null.
    not_implemented: Type.Optional(Type.Number()),
    // Default false: normalise.ts.
    writable: Type.Optional(Type.Boolean()),
    // Required when writable, in engineering units; write_function must fit the data
    // type: modbus/register-rules.ts. Default write function: the first that fits.
    min: Type.Optional(Type.Number()),
    max: Type.Optional(Type.Number()),
    write_function: Type.Optional(oneOf(writeFunctionCodes)),
    description: Type.Optional(text),
    // The register's own poll group, faster or slower than its device: docs/polling.md "Poll groups".
    poll_interval_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 86_400_000 })),
    // MQTT publishes a new value when it moves by more than this, in engineering units (docs/mqtt.md). Default 0.
    deadband: Type.Optional(Type.Number({ minimum: 0 })),
  },
  strict,
);

export const templateRefSchema = Type.Object({ brand: nonEmpty, model: nonEmpty }, strict);

export const deviceSchema = Type.Object(
  {
    name: Type.Optional(nonEmpty),
    id: Type.Optional(uuid),
    // The allowed range depends on the bus type (0..255 on TCP, 1..247 on RTU): rules.ts.
    slave_id: Type.Integer(),
    // The unit id the gateway's Modbus TCP server answers for this device; default
    // slave_id, unique within the gateway: modbus-server-checks.ts.
    server_unit_id: Type.Optional(Type.Integer({ minimum: 0, maximum: 255 })),
    // Required on a TCP bus and refused on the others: rules.ts. Port defaults to 502 on TCP only.
    host: Type.Optional(nonEmpty),
    port: Type.Optional(port()),
    // Default 60000, or the template's suggestion: normalise.ts.
    poll_interval_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 86_400_000 })),
    timeout_ms: Type.Integer({ minimum: 50, maximum: 60_000, default: defaults.timeoutMs }),
    retries: Type.Integer({ minimum: 0, maximum: 5, default: defaults.retries }),
    // Default 125, or the template's limit: normalise.ts.
    max_registers_per_request: Type.Optional(Type.Integer({ minimum: 1, maximum: 125 })),
    max_gap: Type.Integer({ minimum: 0, maximum: 125, default: defaults.maxGap }),
    pause_ms: Type.Integer({ minimum: 0, maximum: 10_000, default: defaults.pauseMs }),
    // Default: the gateway's storage_interval_s (normalise.ts).
    storage_interval_s: Type.Optional(Type.Integer({ minimum: 60, maximum: 86_400 })),
    // Must name a template of the library: rules.ts.
    template: Type.Optional(templateRefSchema),
    // Names of template registers to leave out; only with a template: rules.ts.
    exclude: Type.Optional(Type.Array(nonEmpty)),
    registers: listOf(registerSchema),
    // The addresses are protocol addresses even where they look like Modicon references: no warning (address-references.ts).
    addresses: Type.Optional(Type.Literal("protocol")),
    // SunSpec models to poll, found on the device at start (docs/sunspec.md); `true`: every model fieldhub knows.
    // Known model ids and no repeats: rules.ts.
    sunspec: Type.Optional(
      Type.Union(
        [
          Type.Boolean(),
          Type.Object(
            {
              models: Type.Array(Type.Integer({ minimum: 1, maximum: 65534 }), {
                minItems: 1,
                minItemsMessage: "must list at least one model id",
              }),
              // Instances of a repeating group (160's MPPT modules, ...) given registers. Default 4.
              repeats: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
            },
            strict,
          ),
        ],
        { unionMessage: "must be true, false or { models: [model ids], repeats: N }" },
      ),
    ),
  },
  strict,
);

/**
 * A Modbus TCP server in front of the gateway's devices (docs/polling.md, "The Modbus
 * TCP server"). The port unique across the file, CIDRs, and `writes` only with
 * `allow`: modbus-server-checks.ts.
 */
export const modbusServerSchema = Type.Object(
  {
    port: port(),
    // Default: server.host (normalise.ts).
    host: Type.Optional(nonEmpty),
    // Default: each device's poll_interval_ms (normalise.ts). 0: every read goes to the bus.
    max_age_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400_000 })),
    writes: Type.Boolean({ default: false }),
    // Default: every address.
    allow: Type.Optional(Type.Array(nonEmpty, { minItems: 1, minItemsMessage: "must list at least one network" })),
    max_connections: Type.Integer({ minimum: 1, maximum: 1024, default: defaults.modbusServerMaxConnections }),
  },
  strict,
);

export const gatewaySchema = Type.Object(
  {
    serial,
    id: Type.Optional(uuid),
    name: nonEmpty,
    // Defaults to the only organisation when there is exactly one: normalise.ts.
    organization: Type.Optional(key),
    customer: Type.Optional(key),
    heartbeat_s: Type.Integer({
      minimum: 5,
      maximum: 86_400,
      default: defaults.heartbeatS,
    }),
    firmware_ver: Type.Optional(text),
    ip_eth: Type.Optional(text),
    ip_wifi: Type.Optional(text),
    ip_4g: Type.Optional(text),
    signal_4g: Type.Optional(Type.Integer({ minimum: -150, maximum: 0 })),
    // How often a reading is stored (history density), whatever the poll interval.
    storage_interval_s: Type.Integer({ minimum: 60, maximum: 86_400, default: defaults.storageIntervalS }),
    bus: busSchema,
    modbus_server: Type.Optional(modbusServerSchema),
    devices: listOf(deviceSchema),
  },
  strict,
);

/**
 * An alert rule on one register (docs/api.md section 3). What it names (gateway, device,
 * register) is resolved in alerting-references.ts; what may go with which condition
 * and the message's placeholders are alerting/rule-checks.ts's to decide.
 */
export const ruleSchema = Type.Object(
  {
    name: nonEmpty,
    // Default: derived from the name (stable-ids.ts).
    id: Type.Optional(uuid),
    gateway: serial,
    // A device name, or the slave_id of an unnamed device.
    device: Type.Union([nonEmpty, Type.Integer()], {
      unionMessage: "must be a device name (text) or, for an unnamed device, its slave_id (a whole number)",
    }),
    register: nonEmpty,
    condition: oneOf(conditions),
    threshold: Type.Number(),
    severity: oneOf(severities, { default: defaults.ruleSeverity }),
    // Default: written from the register and condition (alerting/messages.ts).
    message: Type.Optional(nonEmpty),
    // Only with a condition that has a band (gt/gte/lt/lte): alerting/conditions.ts.
    hysteresis: Type.Number({ minimum: 0, default: 0 }),
    for_s: Type.Integer({ minimum: 0, maximum: 86_400, default: 0 }),
    enabled: Type.Boolean({ default: true }),
  },
  strict,
);

/** The offline detector: one rule over every gateway, there whether or not the file mentions it. */
export const offlineAlertsSchema = Type.Object(
  {
    enabled: Type.Boolean({ default: true }),
    severity: oneOf(severities, { default: defaults.offlineSeverity }),
    name: Type.String({ minLength: 1, default: defaults.offlineName }),
    id: Type.Optional(uuid),
    /** Also an alert for each Modbus device announced offline behind an online gateway (docs/alerts.md). */
    devices: Type.Boolean({ default: false }),
  },
  { ...strict, default: {} },
);

/** Exactly one of the two: alerting-references.ts (a pattern cannot say which is wrong). */
export const triggerSchema = Type.Object(
  {
    rule: Type.Optional(nonEmpty),
    // A cron expression of 5 or 6 fields, checked with croner in alerting/rule-checks.ts.
    schedule: Type.Optional(nonEmpty),
  },
  strict,
);

/** What an automation does. Webhook is the only kind so far; the object leaves room for more. */
export const actionSchema = Type.Object({ type: Type.Literal("webhook") }, strict);

export const automationSchema = Type.Object(
  {
    name: nonEmpty,
    // Default: derived from the name (stable-ids.ts).
    id: Type.Optional(uuid),
    enabled: Type.Boolean({ default: true }),
    // Default: the rule's gateway's organisation, or the only organisation: alerting-normalise.ts.
    organization: Type.Optional(key),
    trigger: triggerSchema,
    actions: Type.Array(actionSchema, { minItems: 1, minItemsMessage: "must list at least one action" }),
  },
  strict,
);

export const configSchema = Type.Object(
  {
    server: serverSchema,
    retention: retentionSchema,
    storage: storageSchema,
    uplink: Type.Optional(uplinkSchema),
    mqtt: Type.Optional(mqttSchema),
    api: apiSchema,
    webhooks: webhooksSchema,
    organizations: Type.Array(organizationSchema, {
      minItems: 1,
      minItemsMessage: "must list at least one organisation",
    }),
    gateways: listOf(gatewaySchema),
    rules: listOf(ruleSchema),
    offline_alerts: offlineAlertsSchema,
    automations: listOf(automationSchema),
  },
  strict,
);

/** The file after Value.Default: every field with a default is present. */
export type DefaultedFile = Static<typeof configSchema>;
export type DefaultedGateway = Static<typeof gatewaySchema>;
export type DefaultedDevice = Static<typeof deviceSchema>;
export type DefaultedBus = Static<typeof busSchema>;
export type DefaultedModbusServer = Static<typeof modbusServerSchema>;
export type DefaultedRegister = Static<typeof registerSchema>;
export type DefaultedRule = Static<typeof ruleSchema>;
export type DefaultedOfflineAlerts = Static<typeof offlineAlertsSchema>;
export type DefaultedAutomation = Static<typeof automationSchema>;
