/**
 * Response shapes of docs/api.md section 2. These schemas feed the OpenAPI description;
 * the request schemas live beside each controller.
 */
import { t } from "elysia";
import { deviceHealthStatuses } from "../../lib/device-health.ts";
import { apiErrorCodes } from "../../lib/errors.ts";
import { latestStatuses } from "../../lib/latest-status.ts";

const dateTime = t.String({ format: "date-time" });
const uuid = t.String({ format: "uuid" });
const nullable = t.Nullable;
/** A string enum; `default: undefined` keeps TypeBox from documenting the first member as a default. */
const oneOf = <const Values extends readonly [string, ...string[]]>(values: Values, description?: string) =>
  t.UnionEnum(values, { default: undefined, description });

export const Customer = t.Object(
  { id: uuid, name: t.String(), city: nullable(t.String()) },
  { $id: "Customer", description: "The site or customer a gateway is assigned to." },
);

const gatewayFields = {
  id: uuid,
  serial: t.String(),
  name: t.String(),
  status: oneOf(["online", "offline", "pending", "error"]),
  firmware_ver: nullable(t.String()),
  ip_eth: nullable(t.String({ description: "address on wired network" })),
  ip_wifi: nullable(t.String()),
  ip_4g: nullable(t.String({ description: "address on 4G network" })),
  signal_4g: nullable(t.Integer({ description: "signal strength in dBm" })),
  last_seen: nullable(dateTime),
  created_at: dateTime,
  customer: nullable(Customer),
};

export const Gateway = t.Object(gatewayFields, {
  $id: "Gateway",
  description: "A gateway (called `device` in paths): one polling unit on site.",
});

export const DeviceTemplate = t.Object({ id: uuid, brand: t.String(), model: t.String() }, { $id: "DeviceTemplate" });

const count = (description: string) => t.Integer({ minimum: 0, description });

/** A device's bus counters since this process started (docs/api.md section 2.6, DeviceHealth). */
export const DeviceBusCounters = t.Object(
  {
    requests: count("requests sent to the device (polls, writes, read-backs, pass-through; each retry counts)"),
    timeouts: count("requests without an answer in time"),
    exceptions: t.Record(t.String({ pattern: "^[0-9]+$" }), t.Integer({ minimum: 1 }), {
      description: 'Modbus exception answers by exception code, e.g. {"2": 14}; codes never answered are left out',
    }),
    crc_errors: count("answers that failed their CRC check (RTU)"),
    framing_errors: count("answers of the wrong length, unit or function code (RTU)"),
    retries: count("reads sent again after a timeout or a broken answer (polls, a write's read before and read-back)"),
    mean_response_ms: nullable(
      t.Number({ description: "mean round trip of the requests, answered or not, ms; null before the first" }),
    ),
  },
  {
    $id: "DeviceBusCounters",
    description:
      "What went over the wire to and from the device since this fieldhub started: timeouts on every device of a bus point at the line, on one device at the device",
  },
);

/** Added to the Modbus device (docs/api.md section 2.6; section 9.2 allows added fields). */
export const DeviceHealth = t.Object(
  {
    status: oneOf(
      deviceHealthStatuses,
      "unknown: not polled yet since start; ok; degraded: answers, but a register is set aside or a request failed; unreachable: no answer or no connection; quarantined: silent for several cycles, probed with growing backoff",
    ),
    last_answer_at: nullable(
      t.String({ format: "date-time", description: "when the device last answered (an exception is an answer)" }),
    ),
    last_error: nullable(
      t.String({ description: "the last failure in words, e.g. `timeout after 1000 ms at 3:0`; kept after recovery" }),
    ),
    last_error_at: nullable(dateTime),
    registers_set_aside: t.Integer({ description: "registers the device refuses, left out of its cycle for now" }),
    next_probe_at: nullable(t.String({ format: "date-time", description: "while quarantined: the next attempt" })),
    counters: DeviceBusCounters,
  },
  {
    $id: "DeviceHealth",
    description:
      "How this fieldhub's poller sees the device now (kept in memory: unknown after a restart until the first cycle).",
  },
);

export const ModbusDevice = t.Object(
  {
    id: uuid,
    name: nullable(t.String()),
    slave_id: t.Integer({ description: "Modbus unit id" }),
    protocol: oneOf(["rtu", "tcp"]),
    ip_address: nullable(t.String({ description: "for Modbus TCP" })),
    port: nullable(t.Integer({ description: "for Modbus TCP" })),
    poll_interval_ms: nullable(t.Integer()),
    template: nullable(DeviceTemplate),
    health: DeviceHealth,
  },
  { $id: "ModbusDevice" },
);

/** docs/api.md section 2.5: the gateway's Modbus TCP server, added by fieldhub (section 9.2). */
export const ModbusServer = t.Object(
  {
    port: t.Integer({ description: "the TCP port it listens on" }),
    clients_connected: t.Integer({ description: "Modbus TCP clients connected now" }),
    requests: t.Object(
      {
        cache: t.Integer({ description: "reads answered from the words last read, no bus traffic" }),
        bus: t.Integer({ description: "requests answered by the device through the bus (its exceptions included)" }),
        exception: t.Integer({
          description: "requests answered with an exception of the server's own (1, 2, 3, 6, 10, 11)",
        }),
        refused: t.Integer({
          description: "connections refused (allow, max_connections) or closed for a malformed frame",
        }),
      },
      { description: "since this fieldhub process started" },
    ),
  },
  { $id: "ModbusServer" },
);

export const GatewayDetail = t.Object(
  {
    ...gatewayFields,
    claimed_at: nullable(dateTime),
    modbus_devices: t.Array(ModbusDevice),
    modbus_server: nullable(ModbusServer),
  },
  { $id: "GatewayDetail" },
);

export const Register = t.Object(
  {
    id: uuid,
    modbus_device_id: uuid,
    modbus_device_name: nullable(t.String()),
    name: t.String(),
    address: t.Integer({ description: "register address" }),
    function_code: nullable(
      t.Integer({ description: "1 = coil, 2 = discrete input, 3 = holding register, 4 = input register" }),
    ),
    data_type: t.String({ description: "for example int16, uint16, int32, float32" }),
    unit: nullable(t.String()),
    scale_factor: nullable(t.Number({ description: "value = raw_value x scale_factor" })),
    is_writable: t.Boolean(),
    description: nullable(t.String()),
    latest_value: nullable(t.Number({ description: "engineering units" })),
    latest_raw_value: nullable(t.Number({ description: "as read" })),
    latest_ts: nullable(dateTime),
    latest_text: nullable(
      t.String({
        description: "the text of a `string` register (null for numeric ones, whose value is in latest_value)",
      }),
    ),
    latest_status: oneOf(
      latestStatuses,
      "whether the latest value is current: `ok` read within 2 poll intervals of its device; `stale` not (or never read); `unavailable` its device is unreachable or quarantined, or the register is set aside",
    ),
    set_aside: nullable(
      t.Object(
        {
          reason: t.String({
            description: "e.g. `exception 2 (illegal data address) at 3:40010` (function code:address)",
          }),
          since: dateTime,
          retry_at: t.String({ format: "date-time", description: "when it is tried again" }),
        },
        { description: "the device refuses this register: it is left out of the poll cycle until retry_at" },
      ),
    ),
  },
  { $id: "Register" },
);

export const Reading = t.Object(
  {
    register_id: uuid,
    modbus_device_id: nullable(uuid),
    name: nullable(t.String()),
    unit: nullable(t.String()),
    value: nullable(t.Number({ description: "engineering units" })),
    raw_value: nullable(t.Number({ description: "as read" })),
    ts: dateTime,
    // Added fields (docs/api.md section 4.6): the values polled during the reading's storage period.
    min: nullable(
      t.Number({
        description:
          "engineering units: the least value polled during the reading's storage period; null for history stored without aggregates",
      }),
    ),
    max: nullable(t.Number({ description: "engineering units: the greatest value polled during the storage period" })),
    mean: nullable(
      t.Number({ description: "engineering units: the mean of the values polled during the storage period" }),
    ),
    samples: nullable(t.Integer({ minimum: 1, description: "how many values were polled during the storage period" })),
    raw_min: nullable(t.Number({ description: "the least raw value polled during the storage period" })),
    raw_max: nullable(t.Number({ description: "the greatest raw value polled during the storage period" })),
    raw_mean: nullable(t.Number({ description: "the mean of the raw values polled during the storage period" })),
  },
  { $id: "Reading" },
);

export const Alert = t.Object(
  {
    id: uuid,
    device_id: nullable(uuid),
    rule_id: nullable(uuid),
    severity: oneOf(["critical", "warning", "info"]),
    message: t.String(),
    status: oneOf(["active", "returned", "acknowledged", "resolved"]),
    value: nullable(t.Number()),
    created_at: dateTime,
    last_triggered_at: nullable(dateTime),
    returned_at: nullable(dateTime),
    ack_at: nullable(dateTime),
    ack_note: nullable(t.String()),
    resolved_at: nullable(dateTime),
    resolve_note: nullable(t.String()),
    entry_count: t.Integer({ description: "how often the alert fired while open" }),
  },
  { $id: "Alert" },
);

export const Introspection = t.Object(
  {
    key: t.Object({
      name: t.String(),
      scopes: t.Array(t.String()),
      created_at: dateTime,
      expires_at: nullable(dateTime),
    }),
    organization: t.Object({ name: t.String() }),
    stats: t.Object({
      gateways: t.Integer(),
      devices: t.Integer({ description: "same as gateways, kept for older clients" }),
      open_alerts: t.Integer(),
    }),
  },
  { $id: "Introspection" },
);

export const OffsetMeta = t.Object(
  { total: t.Integer(), limit: t.Integer(), offset: t.Integer() },
  { $id: "OffsetMeta" },
);

export const CursorMeta = t.Object(
  {
    since: dateTime,
    until: dateTime,
    order: oneOf(["asc", "desc"]),
    limit: t.Integer(),
    has_more: t.Boolean(),
    next_cursor: nullable(t.String({ description: "null on the last page" })),
  },
  { $id: "CursorMeta" },
);

export const Problem = t.Object(
  {
    type: t.String({ format: "uri", description: "{docs_url}/errors#<code>" }),
    title: t.String(),
    status: t.Integer(),
    detail: t.Optional(t.String({ description: "for people; may change" })),
    code: oneOf(apiErrorCodes as [string, ...string[]], "stable; clients branch on it"),
    request_id: t.String({ pattern: "^req_[0-9a-f]+$" }),
  },
  { $id: "Problem", description: "RFC 9457 problem details (application/problem+json)." },
);
