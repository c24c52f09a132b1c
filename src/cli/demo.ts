/**
 * `fieldhub demo`: the embedded demo organisation, served on one port. Its
 * equipment is simulated on loopback (Modbus TCP servers) and polled by the real
 * pollers, so latest values change every few seconds and a new reading is stored
 * every minute; several days of history are backfilled at start, alerts exist in
 * every status, and the fixed sandbox key is ready to use.
 */
import { startAppliance } from "../app/appliance.ts";
import { type FieldhubConfig, parseConfig } from "../config/index.ts";
import { DemoDataDirError, defaultDemoDataDir, prepareDemoDataDir } from "../demo/data-dir.ts";
import { type DemoPorts, demoConfigYaml, demoOrganizationKey, demoSandboxKey } from "../demo/demo-config.ts";
import { startDemoEquipment } from "../demo/equipment.ts";
import { type DemoSeedStore, seedDemo } from "../demo/seed.ts";
import { systemClock } from "../lib/clock.ts";
import { hostAddresses, withHostFacts } from "../lib/host.ts";
import { createLogger } from "../lib/logger.ts";
import { createMetricsRegistry } from "../lib/metrics.ts";
import { version } from "../lib/version.ts";
import type { Store } from "../store/index.ts";
import { parseLogFormat, printBanner, runAppliance } from "./appliance-process.ts";
import { CommandError, parseCommandArgs, parsePort } from "./args.ts";

export async function demoCommand(argv: string[]): Promise<void> {
  const { values } = parseCommandArgs(argv, {
    port: { type: "string" },
    host: { type: "string" },
    data: { type: "string" },
    days: { type: "string" },
    "log-format": { type: "string" },
  });
  const logFormat = parseLogFormat(values["log-format"]);
  const days = values.days === undefined ? 7 : Number(values.days);
  if (!Number.isInteger(days) || days < 1 || days > 400) throw new CommandError("--days: a whole number from 1 to 400");
  const port = parsePort(values.port, 8080);
  const dataDir = values.data ?? defaultDemoDataDir();
  if (values.data === undefined) {
    try {
      prepareDemoDataDir(dataDir);
    } catch (error) {
      if (error instanceof DemoDataDirError) throw new CommandError(error.message);
      throw error;
    }
  }
  const logger = createLogger({ format: logFormat });
  const clock = systemClock;
  let stored = 0;
  const { appliance, newStore } = await runAppliance(dataDir, logger, async (store) => {
    const { ports, simulators } = await startDemoEquipment(
      parseDemoConfig({ climateComputer: 1, thermostat: 1, energyMeter: 1, inverter: 1 }),
    );
    const config = parseDemoConfig(ports);
    const now = clock.now();
    stored = await seedDemo(await demoSeedStore(store, config, now), config.inventory, now, days);
    const started = await startAppliance({
      config,
      store,
      clock,
      logger,
      metrics: createMetricsRegistry(),
      host: values.host ?? "127.0.0.1",
      port,
    });
    return {
      appliance: started,
      stopAlso: async () => {
        await Promise.all(simulators.map((simulator) => simulator.stop()));
      },
    };
  });
  const { url, setupToken } = appliance;
  logger.info(
    { url, data: dataDir, new_store: newStore !== null, readings_backfilled: stored },
    `fieldhub demo on ${url}${newStore === null ? "" : `; ${newStore}`}`,
  );
  // The banner is for a person (it holds the setup token): beside pretty lines on
  // stdout, on stderr with JSON lines.
  printBanner(
    logFormat,
    [
      "",
      `fieldhub demo on ${url}`,
      `  API base URL   ${url}/v1`,
      `  API docs       ${url}/docs`,
      `  admin page     ${url}/admin${setupToken === null ? "" : `   (create the owner with setup token ${setupToken})`}`,
      `  sandbox key    ${demoSandboxKey}   (read-only, 60 requests/minute per client address)`,
      `  data           ${dataDir} (${stored} readings backfilled now)${newStore === null ? "" : "; a new store"}`,
      "",
      `  curl -H "Authorization: Bearer ${demoSandboxKey}" ${url}/v1/devices`,
      "",
    ].join("\n"),
  );
}

function parseDemoConfig(ports: DemoPorts): FieldhubConfig {
  const parsed = parseConfig(demoConfigYaml(ports));
  if (!parsed.ok) throw new Error(`embedded demo config is invalid: ${JSON.stringify(parsed.problems)}`);
  return parsed.config;
}

/** The store's operations the demo seed needs, after syncing the demo inventory (the seed needs its rows). */
async function demoSeedStore(store: Store, config: FieldhubConfig, now: number): Promise<DemoSeedStore> {
  await store.inventory.sync(withHostFacts(config.inventory, hostAddresses(), version), now);
  const org = await store.organizations.findByKey(demoOrganizationKey);
  if (org === null) throw new Error("demo organisation missing after sync");
  const { gateways, registers, readings } = store;
  return {
    async gatewaysBySerial() {
      const ids = new Map<string, { id: number; uuid: string }>();
      for (const gateway of config.inventory.organizations[0]?.gateways ?? []) {
        const row = await gateways.find(org.id, gateway.id);
        if (row !== null) ids.set(gateway.serial, { id: row.id, uuid: row.uuid });
      }
      return ids;
    },
    setGatewayState: (uuid, state) => gateways.setStatus(uuid, state),
    registers: (gatewayId) => registers.list(gatewayId),
    recordReadings: (batch) => readings.record(batch),
    async addAlert(alert, gatewayId) {
      const { id, gatewaySerial: _serial, ...fields } = alert;
      await store.alerts.seed({ ...fields, uuid: id, orgId: org.id, gatewayId });
    },
    async addSandboxKey() {
      await store.keys.create(
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
    },
  };
}
