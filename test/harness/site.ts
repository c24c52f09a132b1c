/**
 * A running fieldhub API on a temporary store: two organisations (so tests can
 * prove nothing crosses between them), gateways in every status, Modbus devices,
 * registers, keys of every scope, and a clock the test moves by hand.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig } from "../../src/config/index.ts";
import { createHttpApp } from "../../src/http/app.ts";
import type { ApiScope } from "../../src/lib/api-keys.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { stableUuid } from "../../src/lib/ids.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import type { SeededAlert } from "../../src/store/contract/alerts.ts";
import type { NewReading } from "../../src/store/contract/readings.ts";
import { openPostgresAsStore, openStore, type Store } from "../../src/store/index.ts";
import { sqliteOf } from "../../src/store/sqlite/sqlite-internals.ts";
import { postgresAvailable, postgresMissingReason, startPostgres } from "./postgres.ts";

/** The API tests on the PostgreSQL store (`FIELDHUB_TEST_STORE=postgres`, docs/fleet.md) instead of SQLite. */
export const onPostgres = process.env.FIELDHUB_TEST_STORE === "postgres";
/** For tests that reach into SQLite itself (a query_only store, a renamed table): they prove the SQLite engine alone. */
export const sqliteOnlyReason =
  "reaches into SQLite itself; FIELDHUB_TEST_STORE=postgres runs the API tests on PostgreSQL";

export const testSiteYaml = `
organizations:
  - key: acme
    name: Acme Greenhouses
    writes_enabled: true
    customers:
      - { key: north, name: North site, city: Venlo }
      - { key: south, name: South site }
  - key: globex
    name: Globex Utilities
gateways:
  - serial: ACME-1
    name: Greenhouse 1
    organization: acme
    customer: north
    bus: { type: tcp }
    devices:
      - name: Climate computer
        slave_id: 1
        host: 10.0.0.5
        port: 502
        poll_interval_ms: 10000
        # The template's own registers are left out: these tests use the three below.
        template: { brand: Siemens, model: RDF302 }
        exclude: [operating_mode, fan_output, room_temperature, current_setpoint, heating_output, cooling_output,
          electric_heater_output, x1_temperature, x2_temperature, fan_operation, comfort_setpoint, outside_temperature,
          window_state, heating_cooling]
        registers:
          - { name: air_temperature, address: 0, function_code: 4, data_type: int16, unit: "°C", scale_factor: 0.1, description: Air temperature }
          - { name: humidity, address: 1, function_code: 4, data_type: uint16, unit: "%RH", scale_factor: 0.1 }
          - { name: setpoint, address: 100, function_code: 3, data_type: int16, unit: "°C", scale_factor: 0.1, writable: true, min: 5, max: 30 }
      - name: Energy meter
        slave_id: 2
        host: 10.0.0.6
        registers:
          - { name: power, address: 52, function_code: 4, data_type: float32, unit: W }
          - { name: energy, address: 72, function_code: 4, data_type: int32, unit: kWh, scale_factor: 0.01 }
  - serial: ACME-2
    name: Greenhouse 2
    organization: acme
    customer: south
    bus: { type: rtu, path: /dev/ttyUSB0, baud: 9600, parity: even }
    devices:
      - slave_id: 7
        registers:
          - { name: flow_temperature, address: 1, data_type: int16, unit: "°C", scale_factor: 0.1 }
  - serial: ACME-3
    name: Packing hall
    organization: acme
    bus: { type: tcp }
  - serial: ACME-4
    name: Boiler room
    organization: acme
    bus: { type: tcp }
  - serial: GLOBEX-1
    name: Substation
    organization: globex
    bus: { type: tcp }
    devices:
      - name: Meter
        slave_id: 1
        host: 10.1.0.5
        registers:
          - { name: voltage, address: 0, data_type: float32, unit: V }
`;

export const ids = {
  acmeGateway1: stableUuid("gateway", "ACME-1"),
  acmeGateway2: stableUuid("gateway", "ACME-2"),
  acmeGateway3: stableUuid("gateway", "ACME-3"),
  acmeGateway4: stableUuid("gateway", "ACME-4"),
  globexGateway: stableUuid("gateway", "GLOBEX-1"),
};

/** 2026-03-10T12:00:00Z: a fixed "now" so windows and minutes are predictable. */
export const startTime = Date.UTC(2026, 2, 10, 12, 0, 0);

export interface TestSite {
  baseUrl: string;
  store: Store;
  clock: ManualClock;
  dataDir: string;
  keys: {
    acme: string;
    acmeDevicesOnly: string;
    acmeRegistersOnly: string;
    acmeAlertsOnly: string;
    acmeNoScopes: string;
    globex: string;
  };
  /** Internal register ids by "serial/device/register" name, for writing readings. */
  registerId(path: string): number;
  registerUuid(path: string): string;
  record(readings: NewReading[]): Promise<void>;
  addAlert(
    alert: Omit<SeededAlert, "orgId" | "gatewayId"> & { org: string; gatewaySerial: string | null },
  ): Promise<void>;
  createKey(
    org: string,
    scopes: ApiScope[],
    options?: { expiresAt?: number; rateLimitPerMinute?: number; sandbox?: boolean },
  ): Promise<string>;
  /**
   * Raw SQL for a state no API request makes (a firmware version, an alert fired
   * again, a broken table), on whichever engine the site runs: `?` placeholders.
   */
  execute(text: string, ...params: (string | number | null)[]): Promise<void>;
  stop(): Promise<void>;
}

/** `yaml`: the site's config when a test needs it changed (default testSiteYaml). */
export async function startTestSite(
  options: { defaultLimitPerMinute?: number; yaml?: string } = {},
): Promise<TestSite> {
  const parsed = parseConfig(options.yaml ?? testSiteYaml);
  if (!parsed.ok) throw new Error(`test site config invalid: ${JSON.stringify(parsed.problems)}`);
  const dataDir = mkdtempSync(join(tmpdir(), "fieldhub-test-"));
  // FIELDHUB_TEST_STORE=postgres runs the same API tests on a central's store: a private PostgreSQL per site.
  if (onPostgres && !postgresAvailable) throw new Error(`FIELDHUB_TEST_STORE=postgres: ${postgresMissingReason}`);
  const postgres = onPostgres ? await startPostgres() : null;
  const store = postgres === null ? openStore(dataDir) : await openPostgresAsStore(postgres.url);
  const clock = new ManualClock(startTime);
  await store.inventory.sync(parsed.config.inventory, clock.now());

  const acme = await store.organizations.findByKey("acme");
  const globex = await store.organizations.findByKey("globex");
  if (acme === null || globex === null) throw new Error("organisations missing");
  // Statuses and last-seen times chosen so "most recently seen first" has one answer.
  await store.gateways.setStatus(ids.acmeGateway1, {
    status: "online",
    lastSeen: startTime - 60_000,
    claimedAt: startTime - 86_400_000,
  });
  await store.gateways.setStatus(ids.acmeGateway2, { status: "offline", lastSeen: startTime - 3_600_000 });
  await store.gateways.setStatus(ids.acmeGateway3, { status: "pending", lastSeen: null });
  await store.gateways.setStatus(ids.acmeGateway4, { status: "error", lastSeen: startTime - 30_000 });
  await store.gateways.setStatus(ids.globexGateway, { status: "online", lastSeen: startTime });

  // Each register by its path, serial/device (name, or slave id)/register, from the store's own operations.
  const slaveIds = new Map((await store.registers.contexts()).map((row) => [row.uuid, row.slaveId]));
  const registerRows = (await store.registers.catalog()).map((row) => ({
    id: row.id,
    uuid: row.uuid,
    path: `${row.gatewaySerial}/${row.deviceName ?? slaveIds.get(row.uuid)}/${row.name}`,
  }));
  const registerByPath = new Map(registerRows.map((row) => [row.path, row]));
  const lookup = (path: string) => {
    const row = registerByPath.get(path);
    if (row === undefined) throw new Error(`no register ${path}; have ${[...registerByPath.keys()].join(", ")}`);
    return row;
  };

  const createKey: TestSite["createKey"] = async (org, scopes, keyOptions = {}) =>
    (
      await store.keys.create(
        {
          orgKey: org,
          name: `${org} ${scopes.join(" ") || "no scopes"}`,
          scopes,
          expiresAt: keyOptions.expiresAt ?? null,
          rateLimitPerMinute: keyOptions.rateLimitPerMinute,
          kind: keyOptions.sandbox === true ? "sandbox" : "standard",
        },
        clock.now(),
      )
    ).key;
  const all: ApiScope[] = ["devices:read", "registers:read", "alerts:read"];
  const keys = {
    acme: await createKey("acme", all),
    acmeDevicesOnly: await createKey("acme", ["devices:read"]),
    acmeRegistersOnly: await createKey("acme", ["registers:read"]),
    acmeAlertsOnly: await createKey("acme", ["alerts:read"]),
    acmeNoScopes: await createKey("acme", []),
    globex: await createKey("globex", all),
  };

  const app = await createHttpApp({
    store,
    clock,
    logger: silentLogger(),
    publicUrl: null,
    defaultLimitPerMinute: options.defaultLimitPerMinute ?? 100_000,
  });
  app.listen({ hostname: "127.0.0.1", port: 0, reusePort: false });
  const port = app.server?.port;
  if (port === undefined) throw new Error("test server did not start");
  const { readings } = store;
  const orgIds: Record<string, number> = { acme: acme.id, globex: globex.id };

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    store,
    clock,
    dataDir,
    keys,
    registerId: (path) => lookup(path).id,
    registerUuid: (path) => lookup(path).uuid,
    // On PostgreSQL latest values moved by record reach the registers within a second
    // (a central's processes share them, docs/fleet.md); the tests read them at once.
    record: async (batch) => {
      await readings.record(batch);
      if (onPostgres) await readings.persistLatest();
    },
    addAlert: async ({ org, gatewaySerial, ...alert }) => {
      const orgId = orgIds[org];
      if (orgId === undefined) throw new Error(`unknown org ${org}`);
      const gateway =
        gatewaySerial === null ? null : await store.gateways.find(orgId, stableUuid("gateway", gatewaySerial));
      await store.alerts.seed({ ...alert, orgId, gatewayId: gateway?.id ?? null });
    },
    createKey,
    execute: async (text, ...params) => {
      if (postgres === null) {
        sqliteOf(store)
          .query(text)
          .run(...params);
        return;
      }
      let index = 0;
      const raw = new Bun.SQL(postgres.url, { max: 1 });
      try {
        await raw.unsafe(
          text.replace(/\?/g, () => `$${++index}`),
          params,
        );
      } finally {
        await raw.close();
      }
    },
    stop: async () => {
      await app.stop(true);
      await store.close();
      await postgres?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
