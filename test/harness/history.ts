/**
 * Shared steps of the history export/import/mirror tests: a demo process with a
 * few days of history, its config as a file (ids are name-based, so a fresh store
 * synced from it has the same registers), and the CLI calls.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { demoConfigYaml } from "../../src/demo/demo-config.ts";
import { runCli, startCli } from "./cli.ts";

export const demoKey = "fh_sandbox_demo_5f0c2e8a9b7d4613";

/** The demo's config with its devices on ports nothing answers; enough for a store's inventory. */
export function writeDemoConfig(dir: string): string {
  const path = join(dir, "demo.yaml");
  writeFileSync(path, demoConfigYaml({ climateComputer: 1, thermostat: 2, energyMeter: 3, inverter: 4 }));
  return path;
}

/** Starts `fieldhub demo` on a free port and waits for its banner; returns the base URL. */
export async function startDemo(dataDir: string, days: number) {
  const demo = startCli(["demo", "--port", "0", "--data", dataDir, "--days", String(days)]);
  const url = await demo.waitFor(
    (_log, banner) => /curl -H "[^"]+" (http:\/\/127\.0\.0\.1:\d+)\/v1\/devices\n/.exec(banner)?.[1] ?? null,
    60_000,
  );
  return { demo, url };
}

/** Runs the CLI and fails with its output when it does not exit 0. */
export async function cliOk(args: string[], timeoutMs = 60_000) {
  const result = await runCli(args, timeoutMs);
  if (result.code !== 0)
    throw new Error(`fieldhub ${args.join(" ")} exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** A read key without the sandbox's per-minute limit, made while the demo runs. */
export async function createReadKey(dataDir: string, rateLimit = 100_000): Promise<string> {
  const result = await cliOk([
    "keys",
    "create",
    "--data",
    dataDir,
    "--org",
    "demo",
    "--name",
    "mirror",
    "--scopes",
    "devices:read,registers:read",
    "--rate-limit",
    String(rateLimit),
  ]);
  return result.stdout.trim();
}
