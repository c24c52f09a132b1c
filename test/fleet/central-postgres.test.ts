/**
 * A central on PostgreSQL (docs/fleet.md), on real processes: a private PostgreSQL
 * from Debian's packages, two `fieldhub serve` processes with FIELDHUB_DATABASE_URL
 * on it (each with its own data directory), the CLI on the same database, and a
 * site forwarding from a pymodbus peer. Both centrals answer the same /v1 data, a
 * cursor issued by one works on the other, and every reading the site stored is on
 * the central exactly once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { adminSession } from "../faults/harness/admin-session.ts";
import { hasPymodbus, peerSiteYaml, startModbusPeer } from "../faults/harness/modbus-peer.ts";
import { type RunningCli, servedUrl, startCli } from "../harness/cli.ts";
import { type PrivatePostgres, postgresAvailable, postgresMissingReason, startPostgres } from "../harness/postgres.ts";
import { allReadings, centralYaml, cli, getJson, importSiteHistory, readKey, until } from "./harness.ts";

let workDir: string;
let pg: PrivatePostgres | undefined;
let env: Record<string, string>;
const centrals: { process: RunningCli; url: string }[] = [];
let site: { process: RunningCli; url: string; key: string; dataDir: string } | undefined;
let peer: Awaited<ReturnType<typeof startModbusPeer>> | undefined;
let acmeKey: string;

/** Every reading of one register in the window, following cursors, each page asked of `bases` in turn. */
const historyStart = Math.floor(Date.now() / 60_000) * 60_000 - 3 * 24 * 60 * 60_000;

const skipReason = !postgresAvailable ? postgresMissingReason : hasPymodbus ? null : "needs Debian's python3-pymodbus";

describe.skipIf(skipReason !== null)(`a central on PostgreSQL${skipReason === null ? "" : ` (${skipReason})`}`, () => {
  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), "fieldhub-central-pg-"));
    pg = await startPostgres();
    env = { FIELDHUB_DATABASE_URL: await pg.database("central") };
    writeFileSync(join(workDir, "central.yaml"), centralYaml);
    for (const name of ["central-a", "central-b"]) {
      const process = startCli(
        [
          "serve",
          "--config",
          join(workDir, "central.yaml"),
          "--data",
          join(workDir, name),
          "--host",
          "127.0.0.1",
          "--port",
          "0",
        ],
        env,
      );
      centrals.push({ process, url: await process.waitFor(servedUrl, 30_000) });
    }
    acmeKey = await readKey(join(workDir, "central-a"), "acme", env);
    const token = await cli(
      ["edges", "create", "--data", join(workDir, "central-a"), "--org", "acme", "--name", "north"],
      env,
    );

    peer = await startModbusPeer();
    const configPath = join(workDir, "site.yaml");
    const uplink = `uplink: { url: "${centrals[0]?.url}", token: ${token}, check_interval_s: 1 }\nstorage: { commit_interval_s: 1 }\n`;
    writeFileSync(
      configPath,
      peerSiteYaml({ serial: "NORTH-1", port: peer.port, storageIntervalS: 60, before: uplink }),
      { mode: 0o600 },
    );
    const dataDir = join(workDir, "site");
    await importSiteHistory({
      workDir,
      dataDir,
      configPath,
      serial: "NORTH-1",
      start: historyStart,
      minutes: 3 * 24 * 60,
      value: (minute) => minute % 1000,
    });
    const process = startCli([
      "serve",
      "--config",
      configPath,
      "--data",
      dataDir,
      "--host",
      "127.0.0.1",
      "--port",
      "0",
    ]);
    site = { process, url: await process.waitFor(servedUrl), key: "", dataDir };
    site.key = await readKey(dataDir, "site");
  }, 90_000);

  afterAll(async () => {
    // A central's errors, if any, shown with the test's output (they explain a 500).
    for (const central of centrals) {
      for (const line of central.process.stdout().split("\n"))
        if (line.includes('"level":50')) console.log(line.slice(0, 1500));
    }
    await site?.process.stop();
    for (const central of centrals) await central.process.stop();
    await peer?.stop();
    await pg?.stop();
    if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
  });

  test("both central processes serve the store: healthy, and the same organisations' data", async () => {
    for (const central of centrals) {
      const health = await fetch(`${central.url}/healthz`);
      expect(health.status).toBe(200);
      expect(((await health.json()) as { store: string }).store).toBe("writable");
    }
    const introspect = await getJson<{ data: { organization: { name: string } } }>(
      centrals[1]?.url ?? "",
      acmeKey,
      "/v1/introspect",
    );
    expect(introspect.data.organization.name).toBe("Acme Greenhouses");
  });

  test("the admin page works on either process: a session signed in on one acts on the other", async () => {
    const [a, b] = centrals;
    if (a === undefined || b === undefined) throw new Error("two centrals expected");
    const session = await adminSession(a.url, join(workDir, "central-a"), { user: "owner", role: "owner" }, env);
    const created = await session.post(
      "/admin/api/keys",
      { organization: "acme", name: "made on b", scopes: ["devices:read"] },
      b.url,
    );
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const listed = await session.get("/admin/api/keys?organization=acme", a.url);
    expect(listed.status).toBe(200);
    const keys = ((await listed.json()) as { data: { id: string; name: string }[] }).data;
    expect(keys.find((key) => key.id === id)?.name).toBe("made on b");
    // Without the session, neither process lets the change through.
    const anonymous = await fetch(`${b.url}/admin/api/keys?organization=acme`);
    expect(anonymous.status).toBe(401);
  });

  test("a key's rate limit is exact across the two processes: 2 x 50 requests at once against 60 a minute", async () => {
    const limited = await cli(
      [
        "keys",
        "create",
        "--data",
        join(workDir, "central-a"),
        "--org",
        "acme",
        "--name",
        "limited",
        "--scopes",
        "devices:read",
        "--rate-limit",
        "60",
      ],
      env,
    );
    // Both bursts inside one minute window (the test waits out a window end that is near).
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await Bun.sleep(60_000 - intoMinute + 100);
    const answers = await Promise.all(
      centrals.flatMap((central) =>
        Array.from({ length: 50 }, async () => {
          const response = await fetch(`${central.url}/v1/devices?limit=1`, {
            headers: { authorization: `Bearer ${limited}` },
          });
          await response.arrayBuffer();
          return { status: response.status, remaining: Number(response.headers.get("x-ratelimit-remaining")) };
        }),
      ),
    );
    const allowed = answers.filter((answer) => answer.status === 200);
    expect(allowed).toHaveLength(60);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(40);
    // Each count of the shared window was given out once: remaining 59 down to 0.
    expect(allowed.map((answer) => answer.remaining).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 60 }, (_, i) => i),
    );
  }, 30_000);

  test("a site's forwarded history is on the central exactly once; a cursor from one central works on the other", async () => {
    const sitePath = site as NonNullable<typeof site>;
    await until(
      async () =>
        (await fetch(`${sitePath.url}/healthz`)).json() as Promise<{
          uplink?: { state: string; complete_through: string | null };
        }>,
      (health) =>
        health.uplink?.state === "connected" &&
        (health.uplink.complete_through ?? "") > new Date(historyStart + 3 * 24 * 60 * 60_000).toISOString(),
      60_000,
    );
    const bases = centrals.map((central) => central.url);
    const gateways = await getJson<{ data: { id: string; serial: string }[] }>(bases[1] ?? "", acmeKey, "/v1/devices");
    expect(gateways.data.map((row) => row.serial)).toEqual(["NORTH-1"]);
    const gatewayId = gateways.data[0]?.id ?? "";
    const siteGateways = await getJson<{ data: { id: string }[] }>(sitePath.url, sitePath.key, "/v1/devices");
    expect(siteGateways.data[0]?.id).toBe(gatewayId);
    const registers = await getJson<{ data: { id: string; name: string }[] }>(
      bases[0] ?? "",
      acmeKey,
      `/v1/devices/${gatewayId}/registers`,
    );
    expect(registers.data.map((row) => row.name)).toEqual(["r0", "r1"]);
    const since = new Date(historyStart).toISOString();
    const cut = new Date(historyStart + 3 * 24 * 60 * 60_000).toISOString();
    for (const register of registers.data) {
      const onSite = await allReadings([sitePath.url], sitePath.key, gatewayId, register.id, since, cut);
      // Pages alternate between the two central processes, each continuing the other's cursor.
      const onCentral = await allReadings(bases, acmeKey, gatewayId, register.id, since, cut);
      expect(onSite.length).toBe(3 * 24 * 60);
      expect(onCentral).toEqual(onSite);
    }
  }, 90_000);
});
