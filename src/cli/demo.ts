/**
 * `fieldhub demo`: the embedded demo organisation, served on one port. Its
 * equipment is simulated on loopback (Modbus TCP servers) and polled by the real
 * pollers, so latest values change every few seconds and a new reading is stored
 * every minute; several days of history are backfilled at start, alerts exist in
 * every status, and the fixed sandbox key is ready to use.
 */
import { startAppliance } from "../app/appliance.ts";
import { DemoDataDirError, defaultDemoDataDir, prepareDemoDataDir } from "../demo/data-dir.ts";
import { demoSandboxKey } from "../demo/demo-config.ts";
import { startDemoEquipment } from "../demo/equipment.ts";
import { seedDemo } from "../demo/seed.ts";
import { systemClock } from "../lib/clock.ts";
import { createLogger } from "../lib/logger.ts";
import { createMetricsRegistry } from "../lib/metrics.ts";
import { runAppliance } from "./appliance-process.ts";
import { CommandError, parseCommandArgs, parsePort } from "./args.ts";

export const demoUsage = "fieldhub demo [--port P] [--host H] [--data DIR] [--days N]";

export async function demoCommand(argv: string[]): Promise<void> {
  const { values } = parseCommandArgs(argv, {
    port: { type: "string" },
    host: { type: "string" },
    data: { type: "string" },
    days: { type: "string" },
  });
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
  const logger = createLogger();
  const clock = systemClock;
  let stored = 0;
  const appliance = await runAppliance(dataDir, logger, async (store) => {
    const { config, simulators } = await startDemoEquipment();
    stored = seedDemo(store, config, clock.now(), days);
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
  process.stdout.write(
    [
      "",
      `fieldhub demo on ${url}`,
      `  API base URL   ${url}/v1`,
      `  API docs       ${url}/docs`,
      `  admin page     ${url}/admin${setupToken === null ? "" : `   (create the owner with setup token ${setupToken})`}`,
      `  sandbox key    ${demoSandboxKey}   (read-only, 60 requests/minute per client address)`,
      `  data           ${dataDir} (${stored} readings backfilled now)`,
      "",
      `  curl -H "Authorization: Bearer ${demoSandboxKey}" ${url}/v1/devices`,
      "",
    ].join("\n"),
  );
}
