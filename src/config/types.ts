import type { AutomationConfig, OfflineDetectorConfig, RuleConfig } from "../alerting/rule-model.ts";
import type { Inventory } from "../lib/inventory.ts";
import type { MqttSettings } from "../lib/mqtt-settings.ts";
import type { BusConfig, PollingGateway } from "../modbus/polling-config.ts";
import type { ModbusServerConfig } from "../modbus-server/server-config.ts";

/** One thing wrong with a config file. `path` is like `gateways[2].devices[0].slave_id`; the root is "". */
export interface ConfigProblem {
  path: string;
  message: string;
}

export type ConfigResult = { ok: true; config: FieldhubConfig } | { ok: false; problems: ConfigProblem[] };

/**
 * A problem with where it is in the file: line and column (from 1) of the field, or
 * of its parent when the field is missing, and the path with list items named
 * (`gateways[0] "GW-1" > devices[0] "boiler" > address`). A YAML syntax error is at
 * its mistake, with `where` empty and `text` the line's text (shown with a caret);
 * other problems about the whole file (unreadable, empty) have no `at`.
 */
export interface LocatedProblem extends ConfigProblem {
  at?: { line: number; column: number; where: string; text?: string };
}

/**
 * A checked config; a usable one may still carry warnings (located like problems):
 * what is allowed but most likely a mistake, such as an address written as a Modicon
 * reference (address-references.ts). `config check` prints them and exits 0; `serve`
 * logs them.
 */
export type CheckedConfig =
  | { ok: true; config: FieldhubConfig; warnings: LocatedProblem[] }
  | { ok: false; problems: LocatedProblem[] };

export const busTypes = ["tcp", "rtu", "rtu_over_tcp"] as const;
export type BusType = (typeof busTypes)[number];

export const baudRates = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200] as const;
// The alerting shapes are the alert rule model's.
export type {
  AutomationConfig,
  OfflineDetectorConfig,
  RuleConfig,
} from "../alerting/rule-model.ts";

// The polling shapes are what the Modbus layer reads: it defines them.
export type { BusConfig, PollingDevice, PollingGateway } from "../modbus/polling-config.ts";
export { parities } from "../modbus/polling-config.ts";

export interface FieldhubConfig {
  server: { host: string; port: number; publicUrl: string | null };
  /** From `api.cors_origins` and `api.log_requests`: how the HTTP door treats browsers and its log. */
  http: {
    /** Origins a browser may call /v1 from, or `*` (docs/config.md). */
    corsOrigins: string[];
    /** Log every API request at info, not only refusals and errors. */
    logRequests: boolean;
  };
  retention: { readingsDays: number };
  /** From `storage`: readings are committed at most this long after they were read (what a power cut can lose). */
  storage: { commitIntervalMs: number };
  /** From `uplink`: the central this site forwards to (docs/fleet.md), or null for a box on its own. */
  uplink: { url: string; token: string; checkIntervalMs: number } | null;
  /** From `mqtt`: the broker fieldhub publishes to (docs/mqtt.md), or null. */
  mqtt: MqttSettings | null;
  api: { rateLimitPerMinute: number };
  webhooks: { timeoutMs: number; retryDelaysMs: number[]; pauseAfterFailedMessages: number; logRetentionDays: number };
  /** Fully resolved: every id decided, gateways grouped under their organisation. */
  inventory: Inventory;
  /** Bus settings by gateway serial, in file order. */
  buses: Map<string, BusConfig>;
  /** What each gateway polls and how, in file order. */
  polling: PollingGateway[];
  /** The Modbus TCP servers of the gateways that have `modbus_server`, in file order. */
  modbusServers: ModbusServerConfig[];
  /** Alert rules on registers, in file order; ids are the inventory's. */
  rules: RuleConfig[];
  /** The offline detector, there whether or not the file has `offline_alerts`. */
  offlineDetector: OfflineDetectorConfig;
  /** Automations in file order, each with its organisation decided. */
  automations: AutomationConfig[];
}
