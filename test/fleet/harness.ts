/**
 * What the fleet tests share: a central `fieldhub serve` on a fixed port (so it can
 * be stopped and started again where the sites look for it), the CLI run to its end,
 * API keys that read every reading, and JSON reads of the API.
 */
import { join } from "node:path";
import { type RunningCli, runCli, servedUrl, startCli } from "../harness/cli.ts";

export { eventually as until } from "../faults/harness/serve.ts";

/** `fieldhub serve --config DIR/central.yaml --data DIR/central` on 127.0.0.1:PORT. */
export async function startCentral(
  workDir: string,
  port: number,
  env: Record<string, string> = {},
): Promise<RunningCli> {
  const process = startCli(
    [
      "serve",
      "--config",
      join(workDir, "central.yaml"),
      "--data",
      join(workDir, "central"),
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
    ],
    env,
  );
  await process.waitFor(servedUrl, 30_000);
  return process;
}

/** Runs a command to its end and gives its stdout; a non-zero exit fails the test with its stderr. */
export async function cli(args: string[], env: Record<string, string> = {}): Promise<string> {
  const result = await runCli(args, 30_000, env);
  if (result.code !== 0) throw new Error(`fieldhub ${args.join(" ")}: ${result.stderr}`);
  return result.stdout.trim();
}

/** An API key of ORG that reads devices and registers; a high limit: the tests read every reading, page by page. */
export function readKey(dataDir: string, org: string, env: Record<string, string> = {}): Promise<string> {
  return cli(
    [
      "keys",
      "create",
      "--data",
      dataDir,
      "--org",
      org,
      "--name",
      "test",
      "--scopes",
      "devices:read,registers:read",
      "--rate-limit",
      "100000",
    ],
    env,
  );
}

export async function getJson<T>(base: string, key: string, path: string): Promise<T> {
  const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}
