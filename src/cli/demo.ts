/**
 * `fieldhub demo`: the embedded demo organisation with several days of history,
 * alerts in every status and the fixed sandbox key, served on one port. While it
 * runs, the online gateways store a new reading every minute.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Cron } from "croner";
import { parseConfig } from "../config/index.ts";
import { demoAlerts } from "../demo/alerts.ts";
import { demoConfigYaml, demoGatewaySerials, demoOrganizationKey, demoSandboxKey } from "../demo/demo-config.ts";
import { demoRawValue, demoTimestamps } from "../demo/history.ts";
import { type Clock, systemClock } from "../lib/clock.ts";
import { hostAddresses, withHostFacts } from "../lib/host.ts";
import { createLogger } from "../lib/logger.ts";
import { version } from "../lib/version.ts";
import { insertAlert } from "../store/alerts.ts";
import { gatewayQueries, setGatewayStatus } from "../store/gateways.ts";
import { syncInventory } from "../store/inventory.ts";
import { createApiKey } from "../store/keys.ts";
import { type Store, openStore } from "../store/open.ts";
import { findOrganizationByKey } from "../store/organizations.ts";
import { type NewReading, type ReadingQueries, readingQueries } from "../store/readings.ts";
import { type RegisterQueries, registerQueries } from "../store/registers.ts";
import { CommandError, parseCommandArgs, parsePort } from "./args.ts";
import { startHttpServer, stopOnSignals } from "./server.ts";

export const demoUsage = "fieldhub demo [--port P] [--host H] [--data DIR] [--days N]";

const minute = 60_000;
const hour = 60 * minute;
const backfillIntervalMs = 5 * minute;
const heatPumpSilentFor = 3 * hour;

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
  const clock = systemClock;
  const store = openStore(dataDir);
  const { added: stored, reportingGatewayIds } = seedDemo(store, clock.now(), days);
  const registers = registerQueries(store);
  const readings = readingQueries(store);
  const server = startHttpServer({
    store,
    clock,
    logger,
    host: values.host ?? "127.0.0.1",
    port: parsePort(values.port, 8080),
    publicUrl: null,
    defaultLimitPerMinute: 100,
  });
  const ticker = new Cron("* * * * *", () => {
    recordLiveMinute({ store, clock, registers, readings, gateways: reportingGatewayIds });
  });
  process.stdout.write(
    [
      "",
      `fieldhub demo on ${server.url}`,
      `  API base URL   ${server.url}/v1`,
      `  API docs       ${server.url}/docs`,
      `  sandbox key    ${demoSandboxKey}   (read-only, 60 requests/minute per client address)`,
      `  data           ${dataDir} (${stored} readings backfilled now)`,
      "",
      `  curl -H "Authorization: Bearer ${demoSandboxKey}" ${server.url}/v1/devices`,
      "",
    ].join("\n"),
  );
  stopOnSignals(async () => {
    ticker.stop();
    await server.stop();
    store.close();
  }, logger);
}

/** Brings the demo store up to `now`. Safe to run on every start. */
export function seedDemo(
  store: Store,
  now: number,
  days: number,
): { added: number; reportingGatewayIds: { id: number; uuid: string }[] } {
  const parsed = parseConfig(demoConfigYaml);
  if (!parsed.ok) throw new Error(`embedded demo config is invalid: ${JSON.stringify(parsed.problems)}`);
  syncInventory(store, withHostFacts(parsed.config.inventory, hostAddresses(), version), now);
  const org = findOrganizationByKey(store, demoOrganizationKey);
  if (org === null) throw new Error("demo organisation missing after sync");

  const gateways = gatewayQueries(store);
  const gatewayIds = new Map<string, { id: number; uuid: string }>();
  for (const gateway of parsed.config.inventory.organizations[0]?.gateways ?? []) {
    const row = gateways.find(org.id, gateway.id);
    if (row !== null) gatewayIds.set(gateway.serial, { id: row.id, uuid: row.uuid });
  }
  const reporting = [demoGatewaySerials.greenhouse, demoGatewaySerials.energy];
  for (const serial of reporting) {
    const gateway = gatewayIds.get(serial);
    if (gateway !== undefined)
      setGatewayStatus(store, gateway.uuid, { status: "online", lastSeen: now, claimedAt: now - days * 24 * hour });
  }
  const heatPump = gatewayIds.get(demoGatewaySerials.heatPump);
  if (heatPump !== undefined) {
    setGatewayStatus(store, heatPump.uuid, {
      status: "offline",
      lastSeen: now - heatPumpSilentFor,
      claimedAt: now - days * 24 * hour,
    });
  }

  const registers = registerQueries(store);
  const readings = readingQueries(store);
  let added = 0;
  for (const [serial, gateway] of gatewayIds) {
    const until = serial === demoGatewaySerials.heatPump ? now - heatPumpSilentFor : now;
    const batch: NewReading[] = [];
    for (const register of registers.listRegisters(gateway.id)) {
      const from = Math.max(now - days * 24 * hour, (register.latestTs ?? 0) + 1);
      for (const ts of demoTimestamps(from, until, backfillIntervalMs)) {
        batch.push({ registerId: register.id, ts, rawValue: demoRawValue(register, ts) });
      }
    }
    readings.record(batch);
    added += batch.length;
  }

  const gatewayBySerial = (serial: string) => gatewayIds.get(serial)?.id ?? null;
  for (const alert of demoAlerts(now)) {
    const { id, gatewaySerial, ...fields } = alert;
    insertAlert(store, { ...fields, uuid: id, orgId: org.id, gatewayId: gatewayBySerial(gatewaySerial) });
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
  const reportingGatewayIds = reporting.flatMap((serial) => gatewayIds.get(serial) ?? []);
  return { added, reportingGatewayIds };
}

/** One stored reading per register of the reporting gateways, on the minute. */
function recordLiveMinute(site: {
  store: Store;
  clock: Clock;
  registers: RegisterQueries;
  readings: ReadingQueries;
  gateways: { id: number; uuid: string }[];
}): void {
  const now = site.clock.now();
  const ts = Math.floor(now / minute) * minute;
  const batch: NewReading[] = [];
  for (const gateway of site.gateways) {
    for (const register of site.registers.listRegisters(gateway.id)) {
      batch.push({ registerId: register.id, ts, rawValue: demoRawValue(register, ts) });
    }
  }
  site.readings.record(batch);
  for (const gateway of site.gateways) setGatewayStatus(site.store, gateway.uuid, { status: "online", lastSeen: now });
}
