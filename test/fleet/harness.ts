/**
 * What the fleet tests share: a central `fieldhub serve` on a fixed port (so it can
 * be stopped and started again where the sites look for it), the CLI run to its end,
 * API keys that read every reading, and JSON reads of the API.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { hasPymodbus } from "../faults/harness/modbus-peer.ts";
import { createKey, eventually as until } from "../faults/harness/serve.ts";
import { freePort, type RunningCli, runCli, servedUrl, startCli } from "../harness/cli.ts";
import { postgresAvailable, postgresMissingReason } from "../harness/postgres.ts";
import { createReadKey } from "../harness/served-api.ts";

export { until };

/** Why a test of a site polling pymodbus and a central on `engine` cannot run here, or null. */
export function centralSkipReason(engine: "SQLite" | "PostgreSQL"): string | null {
  if (!hasPymodbus) return "needs Debian's python3-pymodbus";
  return engine === "PostgreSQL" && !postgresAvailable ? postgresMissingReason : null;
}

/** The centrals' config in every fleet test: two organisations, no gateways of their own (sites bring theirs). */
export const centralYaml = `
organizations:
  - key: acme
    name: Acme Greenhouses
  - key: globex
    name: Globex Utilities
`;

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

/** Where one side's /v1 answers, with a key that reads it. */
export type ServedSide = { url: string; key: string };

/**
 * A central (`centralYaml`, its env given: a clock, its store) and a site of its organisation
 * `acme` forwarding to it every second, polling the gateways YAML `gateways` lists
 * (the config's `gateways:` block); both with read keys.
 */
export async function startCentralAndSite(
  workDir: string,
  gateways: string,
  centralEnv: Record<string, string> = {},
): Promise<{ central: RunningCli; site: RunningCli; sides: { site: ServedSide; central: ServedSide } }> {
  writeFileSync(join(workDir, "central.yaml"), centralYaml);
  const centralPort = freePort();
  const central = await startCentral(workDir, centralPort, centralEnv);
  const centralData = join(workDir, "central");
  const token = await cli(["edges", "create", "--data", centralData, "--org", "acme", "--name", "site"], centralEnv);
  writeFileSync(
    join(workDir, "site.yaml"),
    `uplink: { url: "http://127.0.0.1:${centralPort}", token: ${token}, check_interval_s: 1 }
storage: { commit_interval_s: 1 }
organizations: [{ key: site, name: Site }]
${gateways}`,
    { mode: 0o600 },
  );
  const siteData = join(workDir, "site");
  const site = startCli(["serve", "--config", join(workDir, "site.yaml"), "--data", siteData, "--port", "0"]);
  const siteSide = { url: await site.waitFor(servedUrl), key: await createReadKey(siteData, "site") };
  const centralSide = { url: `http://127.0.0.1:${centralPort}`, key: await readKey(centralData, "acme", centralEnv) };
  return { central, site, sides: { site: siteSide, central: centralSide } };
}

/** Runs a command to its end and gives its stdout; a non-zero exit fails the test with its stderr. */
export async function cli(args: string[], env: Record<string, string> = {}): Promise<string> {
  const result = await runCli(args, 30_000, env);
  if (result.code !== 0) throw new Error(`fieldhub ${args.join(" ")}: ${result.stderr}`);
  return result.stdout.trim();
}

/** An API key of ORG that reads devices and registers; a high limit: the tests read every reading, page by page. */
export async function readKey(dataDir: string, org: string, env: Record<string, string> = {}): Promise<string> {
  return (await createKey(dataDir, org, "devices:read,registers:read", env)).key;
}

export async function getJson<T>(base: string, key: string, path: string): Promise<T> {
  const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

type ReadingsPage = { data: { ts: string; raw_value: number | null }[]; meta: { next_cursor: string | null } };

/**
 * Every reading of one register in [since, until) as [ts, raw value], following the
 * cursors; the pages are asked of `bases` in turn (one base, or several processes
 * that must continue each other's cursors).
 */
export async function allReadings(
  bases: string[],
  key: string,
  gatewayId: string,
  registerId: string,
  since: string,
  until: string,
): Promise<[string, number | null][]> {
  const rows: [string, number | null][] = [];
  let cursor: string | null = null;
  let turn = 0;
  do {
    const base = bases[turn++ % bases.length] as string;
    const query = `register_id=${registerId}&since=${since}&until=${until}&order=asc&limit=1000${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
    const page: ReadingsPage = await getJson(base, key, `/v1/devices/${gatewayId}/readings?${query}`);
    rows.push(...page.data.map((row): [string, number | null] => [row.ts, row.raw_value]));
    cursor = page.meta.next_cursor;
  } while (cursor !== null);
  return rows;
}

/**
 * A load balancer as an operator puts in front of the centrals: each request to the
 * next upstream in turn; an upstream that refuses the connection is skipped for the
 * next one (as a proxy does on a failed dial). A request cut off once sent is not
 * sent again (it may have had its effect): 502, as a proxy answers.
 */
export function startBalancer(upstreams: string[]) {
  let turn = 0;
  const served = upstreams.map(() => 0);
  const inFlight = upstreams.map(() => new Map<string, number>());
  let skipped = 0;
  let cutOff = 0;
  const serve = (port: number) =>
    Bun.serve({
      hostname: "127.0.0.1",
      port,
      fetch: forward,
    });
  async function forward(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
    const headers = new Headers(request.headers);
    headers.delete("host");
    for (let tried = 0; tried < upstreams.length; tried++) {
      const index = turn++ % upstreams.length;
      const paths = inFlight[index] as Map<string, number>;
      paths.set(url.pathname, (paths.get(url.pathname) ?? 0) + 1);
      try {
        const response = await fetch(`${upstreams[index]}${url.pathname}${url.search}`, {
          method: request.method,
          headers,
          body,
          redirect: "manual",
        });
        served[index] = (served[index] ?? 0) + 1;
        const answer = new Headers(response.headers);
        // fetch decoded the body: its encoding and length no longer apply.
        answer.delete("content-encoding");
        answer.delete("content-length");
        return new Response(await response.arrayBuffer(), { status: response.status, headers: answer });
      } catch (error) {
        if ((error as { code?: string }).code === "ECONNREFUSED") {
          skipped++;
          continue;
        }
        cutOff++;
        return new Response(`upstream ${upstreams[index]}: ${String(error)}`, { status: 502 });
      } finally {
        paths.set(url.pathname, (paths.get(url.pathname) ?? 1) - 1);
      }
    }
    return new Response("no upstream answers", { status: 502 });
  }
  let server: ReturnType<typeof serve> | null = serve(0);
  const port = server.port as number;
  return {
    url: `http://127.0.0.1:${port}`,
    /** Requests each upstream answered, in the order of `upstreams`. */
    served: () => [...served],
    /** Requests to this path the upstream at `index` has not answered yet. */
    inFlight: (index: number, path: string) => inFlight[index]?.get(path) ?? 0,
    /** Connections refused, each passed on to the next upstream. */
    skipped: () => skipped,
    /** Requests an upstream failed to answer once sent (answered 502). */
    cutOff: () => cutOff,
    /** The link cut: the balancer's port stops listening (connections refused), open requests dropped. */
    cut(): void {
      server?.stop(true);
      server = null;
    },
    /** The link back, on the same address. */
    restore(): void {
      server ??= serve(port);
    },
    stop: () => server?.stop(true),
  };
}

/**
 * A site's history imported before its first start (`fieldhub history import`, as an
 * operator brings one in): a reading of each of the peer site's registers r0 and r1
 * (test/faults/harness/modbus-peer.ts, `peerSiteYaml`) every minute from `start`,
 * `minutes` of them, raw values from `value`. Returns how many readings.
 */
export async function importSiteHistory(site: {
  workDir: string;
  dataDir: string;
  configPath: string;
  serial: string;
  start: number;
  minutes: number;
  value(minute: number, register: "r0" | "r1"): number;
}): Promise<number> {
  const lines: string[] = [];
  for (let minute = 0; minute < site.minutes; minute++) {
    const ts = new Date(site.start + minute * 60_000).toISOString();
    for (const register of ["r0", "r1"] as const) {
      const raw_value = site.value(minute, register);
      lines.push(JSON.stringify({ gateway: site.serial, device: "Meter", register, ts, raw_value }));
    }
  }
  const path = join(site.workDir, `${site.serial}-history.ndjson`);
  writeFileSync(path, `${lines.join("\n")}\n`);
  await cli([
    "history",
    "import",
    "--data",
    site.dataDir,
    "--config",
    site.configPath,
    "--format",
    "ndjson",
    "--quiet",
    path,
  ]);
  return lines.length;
}

/** Every stored reading time of each register of the gateway with this serial, by register name, in [since, until); null without that gateway. */
export async function storedTimes(base: string, key: string, serial: string, since: string, until: string) {
  const gateways = await getJson<{ data: { id: string; serial: string }[] }>(base, key, "/v1/devices");
  const gateway = gateways.data.find((row) => row.serial === serial);
  if (gateway === undefined) return null;
  const registers = await getJson<{ data: { id: string; name: string }[] }>(
    base,
    key,
    `/v1/devices/${gateway.id}/registers`,
  );
  const times = new Map<string, string[]>();
  for (const register of registers.data) {
    const rows = await allReadings([base], key, gateway.id, register.id, since, until);
    times.set(
      register.name,
      rows.map(([ts]) => ts),
    );
  }
  return times;
}

/** A site's /healthz, with what the fleet tests read of its `uplink` (docs/fleet.md, "Forwarding"). */
export interface SiteHealth {
  status: string;
  problems: string[];
  uplink?: {
    state: string;
    reason: string | null;
    complete_through: string | null;
    forwarded_readings: number;
    forwarded_through: string | null;
  };
}

export async function siteHealth(site: { url: string }): Promise<{ code: number; body: SiteHealth }> {
  const response = await fetch(`${site.url}/healthz`);
  return { code: response.status, body: (await response.json()) as SiteHealth };
}

/**
 * Waits until every site is connected and has completed a round that began after
 * `since` + 0.5 s: readings are committed within the sites' commit_interval_s (1 s),
 * so every reading stored before `since` - 1 s is at the central then. Returns the
 * wait in ms.
 */
export async function untilForwarded(sites: readonly { url: string }[], since: number): Promise<number> {
  const complete = new Date(since + 500).toISOString();
  for (const site of sites) {
    await until(
      () => siteHealth(site),
      (answer) => answer.body.uplink?.state === "connected" && (answer.body.uplink.complete_through ?? "") >= complete,
      60_000,
    );
  }
  return Date.now() - since;
}
