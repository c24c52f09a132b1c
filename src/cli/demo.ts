/**
 * `fieldhub demo`: the embedded demo organisation, served on one port. Its
 * equipment is simulated on loopback (Modbus TCP servers) and polled by the real
 * pollers, so latest values change every few seconds and a new reading is stored
 * every minute; several days of history are backfilled at start, alerts exist in
 * every status, and the fixed sandbox key is ready to use.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FieldhubConfig, parseConfig } from "../config/index.ts";
import { demoAlerts } from "../demo/alerts.ts";
import {
  type DemoPorts,
  demoConfigYaml,
  demoGatewaySerials,
  demoOrganizationKey,
  demoSandboxKey,
} from "../demo/demo-config.ts";
import { demoRawValue, demoText, demoTimestamps } from "../demo/history.ts";
import { type SimulatedDevice, startSimulatedDevice } from "../demo/simulator.ts";
import { systemClock } from "../lib/clock.ts";
import { hostAddresses, withHostFacts } from "../lib/host.ts";
import type { InventoryRegister } from "../lib/inventory.ts";
import { requestLogsWanted } from "../http/request-log.ts";
import { createLogger } from "../lib/logger.ts";
import { createMetricsRegistry } from "../lib/metrics.ts";
import { version } from "../lib/version.ts";
import { issueSetupToken } from "../store/admin.ts";
import { insertAlert } from "../store/alerts.ts";
import { gatewayQueries, setGatewayStatus } from "../store/gateways.ts";
import { syncInventory } from "../store/inventory.ts";
import { createApiKey } from "../store/keys.ts";
import { openStore, type Store } from "../store/open.ts";
import { findOrganizationByKey } from "../store/organizations.ts";
import { type NewReading, readingQueries } from "../store/readings.ts";
import { registerQueries } from "../store/registers.ts";
import { CommandError, parseCommandArgs, parsePort } from "./args.ts";
import type { CommandHelp } from "./help.ts";
import { startRuntime } from "./runtime.ts";
import { startHttpServer, stopOnSignals } from "./server.ts";

export const demoHelp: CommandHelp = {
  command: "demo",
  arguments: "[--port P] [--host H] [--data DIR] [--days N]",
  summary: "Run a demo organisation with simulated equipment, backfilled history, alerts and the sandbox API key.",
  options: [
    { flag: "--port P", text: "port to listen on, 0 for any free port (default 8080)" },
    { flag: "--host H", text: "address to listen on (default 127.0.0.1)" },
    { flag: "--data DIR", text: "data directory for the demo's store (default: fieldhub-demo in the temp directory)" },
    { flag: "--days N", text: "days of history to backfill, 1 to 400 (default 7)" },
  ],
  notes: "Set FIELDHUB_LOG_REQUESTS=1 to log every API request; refusals and errors are always logged.",
};

const minute = 60_000;
const hour = 60 * minute;
const backfillIntervalMs = 5 * minute;
const heatPumpSilentFor = 3 * hour;

/** Which simulated device serves which demo device (by gateway serial and device name). */
const simulatedDevices: { port: keyof DemoPorts; serial: string; device: string }[] = [
  { port: "climateComputer", serial: demoGatewaySerials.greenhouse, device: "Climate computer" },
  { port: "thermostat", serial: demoGatewaySerials.greenhouse, device: "Fan-coil thermostat" },
  { port: "energyMeter", serial: demoGatewaySerials.energy, device: "Energy meter" },
  { port: "inverter", serial: demoGatewaySerials.energy, device: "PV inverter" },
];

export async function demoCommand(argv: string[]): Promise<void> {
  const { values } = parseCommandArgs(argv, {
    port: { type: "string" },
    host: { type: "string" },
    data: { type: "string" },
    days: { type: "string" },
  });
  const dataDir = values.data ?? join(tmpdir(), "fieldhub-demo");
  const days = values.days === undefined ? 7 : Number(values.days);
  if (!Number.isInteger(days) || days < 1 || days > 400) throw new CommandError("--days: a whole number from 1 to 400");
  const logger = createLogger();
  const metrics = createMetricsRegistry();
  const clock = systemClock;

  const { config, simulators } = await startDemoEquipment();
  const store = openStore(dataDir);
  const setupToken = issueSetupToken(store);
  if (setupToken !== null) {
    logger.warn(
      { setup_token: setupToken },
      "no admin account yet: create the owner with POST /admin/api/setup and this one-time token, or run `fieldhub admin set-password`",
    );
  }
  const stored = seedDemo(store, config, clock.now(), days);
  const runtime = startRuntime({
    store,
    clock,
    logger,
    gateways: config.polling,
    retentionDays: config.retention.readingsDays,
    webhooks: config.webhooks,
    alerting: { rules: config.rules, offlineDetector: config.offlineDetector, automations: config.automations },
    metrics,
  });
  const server = startHttpServer({
    metrics,
    store,
    clock,
    logger,
    host: values.host ?? "127.0.0.1",
    port: parsePort(values.port, 8080),
    publicUrl: null,
    defaultLimitPerMinute: 100,
    healthChecks: runtime.healthChecks,
    onEvent: () => runtime.dispatcher.wake(),
    corsOrigins: config.http.corsOrigins,
    logRequests: requestLogsWanted(config.http.logRequests),
  });
  process.stdout.write(
    [
      "",
      `fieldhub demo on ${server.url}`,
      `  API base URL   ${server.url}/v1`,
      `  API docs       ${server.url}/docs`,
      `  admin page     ${server.url}/admin${setupToken === null ? "" : `   (create the owner with setup token ${setupToken})`}`,
      `  sandbox key    ${demoSandboxKey}   (read-only, 60 requests/minute per client address)`,
      `  data           ${dataDir} (${stored} readings backfilled now)`,
      "",
      `  curl -H "Authorization: Bearer ${demoSandboxKey}" ${server.url}/v1/devices`,
      "",
    ].join("\n"),
  );
  stopOnSignals(async () => {
    await server.stop();
    await runtime.stop();
    await Promise.all(simulators.map((simulator) => simulator.stop()));
    store.close();
  }, logger);
}

function parseDemoConfig(ports: DemoPorts): FieldhubConfig {
  const parsed = parseConfig(demoConfigYaml(ports));
  if (!parsed.ok) throw new Error(`embedded demo config is invalid: ${JSON.stringify(parsed.problems)}`);
  return parsed.config;
}

function registersOf(config: FieldhubConfig): Map<string, InventoryRegister> {
  const byId = new Map<string, InventoryRegister>();
  for (const organization of config.inventory.organizations) {
    for (const gateway of organization.gateways) {
      for (const device of gateway.modbusDevices)
        for (const register of device.registers) byId.set(register.id, register);
    }
  }
  return byId;
}

/**
 * Starts the simulated devices on free loopback ports and returns the demo
 * config pointing at them. (Register maps do not depend on ports, so the maps
 * come from a first reading of the config.)
 */
export async function startDemoEquipment(): Promise<{ config: FieldhubConfig; simulators: SimulatedDevice[] }> {
  const draft = parseDemoConfig({ climateComputer: 1, thermostat: 1, energyMeter: 1, inverter: 1 });
  const registers = registersOf(draft);
  const ports: Partial<DemoPorts> = {};
  const simulators: SimulatedDevice[] = [];
  for (const simulated of simulatedDevices) {
    const gateway = draft.polling.find((candidate) => candidate.serial === simulated.serial);
    const device = gateway?.devices.find((candidate) => candidate.name === simulated.device);
    if (device === undefined) throw new Error(`demo device ${simulated.device} missing`);
    const simulator = await startSimulatedDevice({
      registers: device.registers.map((decoding) => {
        const register = registers.get(decoding.id);
        return {
          ...decoding,
          valueAt: (ts: number) =>
            register === undefined
              ? 0
              : decoding.dataType === "string"
                ? demoText(register)
                : demoRawValue(register, ts),
        };
      }),
    });
    simulators.push(simulator);
    ports[simulated.port] = simulator.port;
  }
  return { config: parseDemoConfig(ports as DemoPorts), simulators };
}

/** Brings the demo store up to `now`: inventory, states, history, alerts, sandbox key. Safe on every start. */
export function seedDemo(store: Store, config: FieldhubConfig, now: number, days: number): number {
  syncInventory(store, withHostFacts(config.inventory, hostAddresses(), version), now);
  const org = findOrganizationByKey(store, demoOrganizationKey);
  if (org === null) throw new Error("demo organisation missing after sync");
  const gateways = gatewayQueries(store);
  const gatewayIds = new Map<string, { id: number; uuid: string }>();
  for (const gateway of config.inventory.organizations[0]?.gateways ?? []) {
    const row = gateways.find(org.id, gateway.id);
    if (row !== null) gatewayIds.set(gateway.serial, { id: row.id, uuid: row.uuid });
  }
  const claimedAt = now - days * 24 * hour;
  for (const serial of [demoGatewaySerials.greenhouse, demoGatewaySerials.energy]) {
    const gateway = gatewayIds.get(serial);
    if (gateway !== undefined) setGatewayStatus(store, gateway.uuid, { status: "online", lastSeen: now, claimedAt });
  }
  const heatPump = gatewayIds.get(demoGatewaySerials.heatPump);
  if (heatPump !== undefined) {
    setGatewayStatus(store, heatPump.uuid, { status: "offline", lastSeen: now - heatPumpSilentFor, claimedAt });
  }

  const registers = registerQueries(store);
  const readings = readingQueries(store);
  const units = registersOf(config);
  let added = 0;
  for (const [serial, gateway] of gatewayIds) {
    const until = serial === demoGatewaySerials.heatPump ? now - heatPumpSilentFor : now;
    const batch: NewReading[] = [];
    for (const register of registers.listRegisters(gateway.id)) {
      if (register.dataType === "string") continue;
      const meta = { ...register, unit: units.get(register.uuid)?.unit ?? register.unit };
      const from = Math.max(now - days * 24 * hour, (register.latestTs ?? 0) + 1);
      for (const ts of demoTimestamps(from, until, backfillIntervalMs)) {
        batch.push({ registerId: register.id, ts, rawValue: demoRawValue(meta, ts) });
      }
    }
    readings.record(batch);
    added += batch.length;
  }

  for (const alert of demoAlerts(now)) {
    const { id, gatewaySerial, ...fields } = alert;
    insertAlert(store, { ...fields, uuid: id, orgId: org.id, gatewayId: gatewayIds.get(gatewaySerial)?.id ?? null });
  }
  createApiKey(
    store,
    {
      orgKey: demoOrganizationKey,
      name: "Sandbox (demo)",
      scopes: ["devices:read", "registers:read", "alerts:read"],
      expiresAt: null,
      kind: "sandbox",
      key: demoSandboxKey,
    },
    now,
  );
  return added;
}
