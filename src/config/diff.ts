/**
 * What changes between two checked configs, by name: what a reload applies (app/reload.ts)
 * and what `fieldhub config check --data DIR` prints against the running config. Elements
 * are matched by their stable ids (stable-ids.ts), so a renamed register with a written
 * id is "changed", one without is "removed" and "added"; settings sections are compared
 * whole. docs/config.md, "Reloading the config", says what each change does.
 */
import { createHash } from "node:crypto";
import type { FieldhubConfig } from "./types.ts";

/**
 * A config as the diff compares it: plain JSON (maps as entries in key order) with its
 * secrets (`uplink.token`, `mqtt.password`) as their SHA-256, so that the running one
 * can be recorded on disk (app/running-config.ts) and compared later without keeping
 * the secrets there. Its map fields hold entries, whatever the type says: only the
 * diff reads it.
 */
export type ConfigSnapshot = FieldhubConfig & { snapshot: 1 };

export function configSnapshot(config: FieldhubConfig | ConfigSnapshot): ConfigSnapshot {
  if ("snapshot" in config) return config;
  const hashed = (secret: string | null) =>
    secret === null ? null : `sha256:${createHash("sha256").update(secret).digest("hex")}`;
  const withoutSecrets = {
    ...config,
    uplink: config.uplink === null ? null : { ...config.uplink, token: hashed(config.uplink.token) },
    mqtt: config.mqtt === null ? null : { ...config.mqtt, password: hashed(config.mqtt.password) },
    snapshot: 1,
  };
  return JSON.parse(canonical(withoutSecrets)) as ConfigSnapshot;
}

export type ChangeKind = "added" | "removed" | "changed";

export interface ConfigChange {
  change: ChangeKind;
  /** What it is: `gateway`, `device`, `register`, `rule`, a settings section (`api`, `mqtt`, ...). */
  what: string;
  /** How the file names it: a gateway by serial, a device as `SERIAL/device`, a register as `SERIAL/device/register`. */
  name: string;
  /** For "changed": the fields that differ (snake_case, as the file writes most of them). */
  fields?: string[];
}

export interface ConfigDiff {
  changes: ConfigChange[];
  /** Gateways (ids) whose polling differs: bus, heartbeat, devices or registers; restarted alone. */
  gateways: { added: string[]; removed: string[]; changed: string[] };
  /** Gateways (ids) whose Modbus TCP server is new, gone, or runs with other settings. */
  modbusServers: { added: string[]; removed: string[]; changed: string[] };
  /** Settings that differ but take effect only at the next start (`server.port`, ...). */
  needRestart: string[];
  /** Which parts of the config differ at all. */
  sections: {
    /** Equipment or how it is polled: organisations down to registers, buses, timeouts, byte orders. */
    inventory: boolean;
    /** The inventory as the store keeps it and the API, MQTT and the uplink show it (not how it is polled). */
    published: boolean;
    rules: boolean;
    mqtt: boolean;
    uplink: boolean;
    webhooks: boolean;
    http: boolean;
    retention: boolean;
  };
}

/** What `next` changes against `running`; either may be a config or its snapshot. */
export function diffConfigs(
  runningConfig: FieldhubConfig | ConfigSnapshot,
  nextConfig: FieldhubConfig | ConfigSnapshot,
): ConfigDiff {
  const running = configSnapshot(runningConfig);
  const next = configSnapshot(nextConfig);
  const changes: ConfigChange[] = [];
  const settings = (what: string, before: unknown, after: unknown) => {
    const change = compare(before, after);
    if (change !== null) changes.push({ change, what, name: what, ...fieldsOf(change, before, after) });
    return change !== null;
  };
  settings("server", { publicUrl: running.server.publicUrl }, { publicUrl: next.server.publicUrl });
  const http = settings("api", { ...running.api, ...running.http }, { ...next.api, ...next.http });
  const retention = settings("retention", running.retention, next.retention);
  const webhooks = settings("webhooks", running.webhooks, next.webhooks);
  const uplink = settings("uplink", running.uplink, next.uplink);
  const mqtt = settings("mqtt", running.mqtt, next.mqtt);
  const offline = settings("offline_alerts", running.offlineDetector, next.offlineDetector);

  const inventoryBefore = changes.length;
  listEquipment(changes, running, next);
  const inventory = changes.length > inventoryBefore || compare(running.polling, next.polling) !== null;
  const servers = pairUp(
    running.modbusServers,
    next.modbusServers,
    (server) => server.gatewayId,
    (server) => server.gatewaySerial,
  );
  listPairs(changes, "modbus_server", servers, (server) => server);

  const rulesBefore = changes.length;
  // Rules and automations are named, and matched by id, the same way.
  const byName = <T extends { id: string; name: string }>(what: string, before: readonly T[], after: readonly T[]) =>
    listPairs(
      changes,
      what,
      pairUp(
        before,
        after,
        (item) => item.id,
        (item) => item.name,
      ),
      (item) => item,
    );
  byName("rule", running.rules, next.rules);
  byName("automation", running.automations, next.automations);
  const rules = offline || changes.length > rulesBefore;

  const needRestart = [
    running.server.host !== next.server.host ? "server.host" : null,
    running.server.port !== next.server.port ? "server.port" : null,
    running.storage.commitIntervalMs !== next.storage.commitIntervalMs ? "storage.commit_interval_s" : null,
  ].filter((field): field is string => field !== null);

  return {
    changes,
    gateways: idChanges(running.polling, next.polling, (gateway) => gateway.id),
    modbusServers: idChanges(running.modbusServers, next.modbusServers, (server) => server.gatewayId),
    needRestart,
    sections: {
      inventory,
      published: compare(running.inventory, next.inventory) !== null,
      rules,
      mqtt,
      uplink,
      webhooks,
      http,
      retention,
    },
  };
}

/**
 * Organisations, customers, gateways, devices and registers: each with the poller's
 * settings of it (bus, timeouts, byte order), from its own side.
 */
function listEquipment(changes: ConfigChange[], running: FieldhubConfig, next: FieldhubConfig): void {
  const gatewayList = (config: FieldhubConfig) =>
    config.inventory.organizations.flatMap((org) =>
      org.gateways.map((gateway) => ({ ...gateway, organization: org.key })),
    );
  const pollingOf = (config: FieldhubConfig) => new Map(config.polling.map((gateway) => [gateway.id, gateway]));
  const organizations = pairUp(
    running.inventory.organizations,
    next.inventory.organizations,
    (org) => org.id,
    (org) => org.key,
  );
  listPairs(changes, "organization", organizations, ({ customers: _c, gateways: _g, ...org }) => org);
  for (const [before, after] of organizations.kept) {
    const customers = pairUp(
      before.customers,
      after.customers,
      (customer) => customer.id,
      (customer) => `${after.key}/${customer.key}`,
    );
    listPairs(changes, "customer", customers, (customer) => customer);
  }

  const pollingBefore = pollingOf(running);
  const pollingAfter = pollingOf(next);
  const gateways = pairUp(
    gatewayList(running),
    gatewayList(next),
    (gateway) => gateway.id,
    (gateway) => gateway.serial,
  );
  listPairs(changes, "gateway", gateways, ({ modbusDevices: _d, ...gateway }, side) => {
    const polling = (side === "before" ? pollingBefore : pollingAfter).get(gateway.id);
    return { ...gateway, bus: polling?.bus, reconnectMaxMs: polling?.reconnectMaxMs };
  });
  for (const [before, after] of gateways.kept) {
    const pollingDevices = {
      before: new Map(pollingBefore.get(before.id)?.devices.map((device) => [device.id, device])),
      after: new Map(pollingAfter.get(after.id)?.devices.map((device) => [device.id, device])),
    };
    const deviceName = (device: { name: string | null; slaveId: number }) =>
      `${after.serial}/${device.name ?? `unit ${device.slaveId}`}`;
    const devices = pairUp(before.modbusDevices, after.modbusDevices, (device) => device.id, deviceName);
    listPairs(changes, "device", devices, ({ registers: _r, ...device }, side) => {
      const polling = pollingDevices[side].get(device.id);
      return {
        ...device,
        timeoutMs: polling?.timeoutMs,
        retries: polling?.retries,
        maxRegistersPerRequest: polling?.maxRegistersPerRequest,
        maxGap: polling?.maxGap,
        pauseMs: polling?.pauseMs,
      };
    });
    for (const [deviceBefore, deviceAfter] of devices.kept) {
      const decodings = {
        before: new Map(pollingDevices.before.get(deviceBefore.id)?.registers.map((r) => [r.id, r])),
        after: new Map(pollingDevices.after.get(deviceAfter.id)?.registers.map((r) => [r.id, r])),
      };
      const registers = pairUp(
        deviceBefore.registers,
        deviceAfter.registers,
        (register) => register.id,
        (register) => `${deviceName(deviceAfter)}/${register.name}`,
      );
      listPairs(changes, "register", registers, (register, side) => ({
        ...decodings[side].get(register.id),
        ...register,
      }));
    }
  }
}

/** One change as a line: `+ register FH-1/boiler/flow`, `~ api (rate_limit_per_minute)`, `- rule CO2 high`. */
export function describeChange(change: ConfigChange): string {
  const sign = change.change === "added" ? "+" : change.change === "removed" ? "-" : "~";
  const fields = change.fields === undefined || change.fields.length === 0 ? "" : ` (${change.fields.join(", ")})`;
  const name = change.name === change.what ? "" : ` ${change.name}`;
  return `${sign} ${change.what}${name}${fields}`;
}

type Paired<T> = { added: T[]; removed: T[]; kept: [T, T][]; nameOf: (item: T) => string };

function pairUp<T>(before: readonly T[], after: readonly T[], idOf: (item: T) => string, nameOf: (item: T) => string) {
  const afterById = new Map(after.map((item) => [idOf(item), item]));
  const beforeIds = new Set(before.map(idOf));
  const kept: [T, T][] = [];
  const removed: T[] = [];
  for (const item of before) {
    const match = afterById.get(idOf(item));
    if (match === undefined) removed.push(item);
    else kept.push([item, match]);
  }
  return { added: after.filter((item) => !beforeIds.has(idOf(item))), removed, kept, nameOf } satisfies Paired<T>;
}

/** Lists what was removed, changed (its own fields, `own` of each side, differ) and added. */
function listPairs<T>(
  changes: ConfigChange[],
  what: string,
  paired: Paired<T>,
  own: (item: T, side: "before" | "after") => unknown,
): void {
  for (const item of paired.removed) changes.push({ change: "removed", what, name: paired.nameOf(item) });
  for (const [before, after] of paired.kept) {
    const [ownBefore, ownAfter] = [own(before, "before"), own(after, "after")];
    if (compare(ownBefore, ownAfter) !== null)
      changes.push({
        change: "changed",
        what,
        name: paired.nameOf(after),
        ...fieldsOf("changed", ownBefore, ownAfter),
      });
  }
  for (const item of paired.added) changes.push({ change: "added", what, name: paired.nameOf(item) });
}

function idChanges<T>(before: readonly T[], after: readonly T[], idOf: (item: T) => string) {
  const paired = pairUp(before, after, idOf, idOf);
  return {
    added: paired.added.map(idOf),
    removed: paired.removed.map(idOf),
    changed: paired.kept.filter(([a, b]) => compare(a, b) !== null).map(([, b]) => idOf(b)),
  };
}

/** "changed" when the two differ (or one of them is null: "added"/"removed"), else null. */
function compare(before: unknown, after: unknown): ChangeKind | null {
  if (before === null && after !== null) return "added";
  if (before !== null && after === null) return "removed";
  return canonical(before) === canonical(after) ? null : "changed";
}

/** The top-level fields of two records that differ, snake_case. */
function fieldsOf(change: ChangeKind, before: unknown, after: unknown): { fields?: string[] } {
  if (change !== "changed" || !isRecord(before) || !isRecord(after)) return {};
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return {
    fields: keys
      .filter((key) => canonical(before[key]) !== canonical(after[key]))
      .map((key) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value as text that two equal configs share: maps as sorted entries, record keys sorted. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item instanceof Map) return [...item.entries()].sort(([a], [b]) => String(a).localeCompare(String(b)));
    if (isRecord(item)) return Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b)));
    return item;
  });
}
