/**
 * Talking to a running `fieldhub serve` the way a client does: a key made with the
 * CLI beside it, GET on /v1 with it, one series of /metrics, and waiting for a served
 * answer to reach a state.
 */
import { runCli } from "./cli.ts";

/**
 * A key of `org` with `scopes` (comma-separated) and a rate limit no test reaches,
 * made by `fieldhub keys create` as a process; throws with its stderr when refused.
 */
export async function createKey(dataDir: string, org: string, scopes: string, name = "test"): Promise<string> {
  const created = await runCli([
    "keys",
    "create",
    "--data",
    dataDir,
    "--org",
    org,
    "--name",
    name,
    "--scopes",
    scopes,
    "--rate-limit",
    "100000",
    "--json",
  ]);
  if (created.code !== 0) throw new Error(`keys create: ${created.code} ${created.stderr}`);
  return (JSON.parse(created.stdout) as { key: string }).key;
}

/** A key of `org` with devices:read and registers:read. */
export function createReadKey(dataDir: string, org: string): Promise<string> {
  return createKey(dataDir, org, "devices:read,registers:read");
}

/** The value of one series of /metrics, written as it stands (`name{label="..."}`), or null when it is not there. */
export async function metricSeries(baseUrl: string, series: string): Promise<number | null> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

/** GET `path` with `key`; the `data` of a 200 answer, else throws with the status and body. */
export async function getData<T>(baseUrl: string, key: string, path: string): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { data: T }).data;
}

/** Reads until `accept` holds (every 100 ms), or throws with the last answer after `timeoutMs`. */
export async function eventually<T>(
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`not reached in time; last: ${JSON.stringify(last).slice(0, 3000)}`);
    await Bun.sleep(100);
    last = await read();
  }
  return last;
}
