/**
 * Sites forwarding to a central (docs/fleet.md, "Forwarding"), on real processes:
 * a central `fieldhub serve`, two site `fieldhub serve`s each polling its own
 * pymodbus peer and forwarding with an edge token of its own organisation. The
 * central is killed (-9) while the sites keep polling, then comes back: every
 * reading arrives exactly once (the central's counts per register equal the
 * sites'), each organisation sees only its site's gateway, and a site that names
 * another site's gateway is refused and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hasPymodbus, peerSiteYaml, startModbusPeer } from "../faults/harness/modbus-peer.ts";
import { freePort, type RunningCli, servedUrl, startCli } from "../harness/cli.ts";
import {
  centralYaml,
  cli,
  getJson,
  importSiteHistory,
  readKey,
  siteHealth,
  startCentral,
  storedTimes,
  until,
  untilForwarded,
} from "./harness.ts";

interface Box {
  name: string;
  dataDir: string;
  process: RunningCli;
  url: string;
  key: string;
}

let workDir: string;
let centralPort: number;
let centralUrl: string;
let central: RunningCli | undefined;
const sites: Box[] = [];
const peers: Awaited<ReturnType<typeof startModbusPeer>>[] = [];
const centralKeys = new Map<string, string>();

interface PreparedSite {
  name: string;
  configPath: string;
  dataDir: string;
}

/** A site's peer, edge token, config and imported history, before its serve starts. */
async function prepareSite(name: string, org: string, serial: string): Promise<PreparedSite> {
  const peer = await startModbusPeer();
  peers.push(peer);
  const token = await cli(["edges", "create", "--data", join(workDir, "central"), "--org", org, "--name", name]);
  const uplink = `uplink: { url: "${centralUrl}", token: ${token}, check_interval_s: 1 }\nstorage: { commit_interval_s: 1 }\n`;
  const configPath = join(workDir, `${name}.yaml`);
  writeFileSync(configPath, peerSiteYaml({ serial, port: peer.port, storageIntervalS: 60, before: uplink }), {
    mode: 0o600,
  });
  const dataDir = join(workDir, name);
  // The site's history before it first forwards: 60 days a minute apart (172,800 readings), so the first catch-up is a burst.
  await importSiteHistory({
    workDir,
    dataDir,
    configPath,
    serial,
    start: historyStart,
    minutes: historyDays * 24 * 60,
    value: (minute, register) => (minute * 7 + register.length) % 500,
  });
  return { name, configPath, dataDir };
}

function launchSite(site: PreparedSite): RunningCli {
  return startCli(["serve", "--config", site.configPath, "--data", site.dataDir, "--host", "127.0.0.1", "--port", "0"]);
}

const historyDays = 60;
const historyStart = Math.floor(Date.now() / 60_000) * 60_000 - (historyDays * 24 * 60 + 10) * 60_000;

describe.skipIf(!hasPymodbus)("sites forwarding to a central (needs Debian's python3-pymodbus)", () => {
  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), "fieldhub-forwarding-"));
    writeFileSync(join(workDir, "central.yaml"), centralYaml);
    centralPort = freePort();
    centralUrl = `http://127.0.0.1:${centralPort}`;
    central = await startCentral(workDir, centralPort);
    centralKeys.set("acme", await readKey(join(workDir, "central"), "acme"));
    centralKeys.set("globex", await readKey(join(workDir, "central"), "globex"));
    // Both sites are ready before either starts, so the test meets the north site in its first burst.
    const prepared = [await prepareSite("north", "acme", "NORTH-1"), await prepareSite("south", "globex", "SOUTH-1")];
    const processes = prepared.map(launchSite);
    for (const [index, site] of prepared.entries()) {
      const process = processes[index] as RunningCli;
      sites.push({ name: site.name, dataDir: site.dataDir, process, url: await process.waitFor(servedUrl), key: "" });
    }
  }, 60_000);

  afterAll(async () => {
    for (const site of sites) await site.process.stop();
    await central?.stop();
    for (const peer of peers) await peer.stop();
    if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
  });

  test("the central killed (-9) during the sites' catch-up burst: after it returns, every reading is there exactly once", async () => {
    const north = sites[0];
    if (north === undefined) throw new Error("site missing");
    // Killed mid-burst: the north site has forwarded part of its history, not all.
    await until(
      () => siteHealth(north),
      (answer) => (answer.body.uplink?.forwarded_readings ?? 0) > 0,
      30_000,
      5,
    );
    central?.proc.kill("SIGKILL");
    await central?.proc.exited;
    const atKill = (await siteHealth(north)).body.uplink;
    console.log(
      `central killed with north at ${atKill?.forwarded_readings} of ${historyDays * 24 * 60 * 2} readings forwarded`,
    );
    for (const site of sites) {
      const away = await until(
        () => siteHealth(site),
        (answer) => answer.body.uplink?.state === "unreachable",
        15_000,
      );
      expect(away.code).toBe(200);
    }
    await Bun.sleep(3_000);
    central = await startCentral(workDir, centralPort);
    const restartedAt = Date.now();
    const cut = new Date(restartedAt - 1_000).toISOString();
    const completeAfterMs = await untilForwarded(sites, restartedAt);
    console.log(`both sites complete ${completeAfterMs} ms after the central's restart`);
    for (const site of sites) site.key = await readKey(site.dataDir, "site");
    const since = new Date(historyStart - 60_000).toISOString();
    for (const [site, org, serial] of [
      [sites[0], "acme", "NORTH-1"],
      [sites[1], "globex", "SOUTH-1"],
    ] as const) {
      if (site === undefined) throw new Error("site missing");
      const local = await storedTimes(site.url, site.key, serial, since, cut);
      const forwarded = await storedTimes(centralUrl, centralKeys.get(org) ?? "", serial, since, cut);
      const counts = [...(local ?? new Map<string, string[]>()).entries()].map(([name, times]) => [name, times.length]);
      console.log(`${site.name}: readings per register before ${cut}: ${JSON.stringify(counts)}`);
      for (const [, times] of local ?? new Map<string, string[]>()) {
        expect(times.length).toBeGreaterThanOrEqual(historyDays * 24 * 60);
      }
      // Exactly once: the same times, none missing, none twice.
      expect(forwarded).toEqual(local);
    }
  }, 120_000);

  test("each organisation sees its own site's gateway, online as its site says, with readings, and nothing of the other", async () => {
    for (const [org, serial, other] of [
      ["acme", "NORTH-1", "SOUTH-1"],
      ["globex", "SOUTH-1", "NORTH-1"],
    ] as const) {
      const key = centralKeys.get(org) ?? "";
      // The site's tracker saw its peer answer: the central shows the gateway online, not pending.
      const gateways = await until(
        () =>
          getJson<{ data: { serial: string; id: string; status: string; last_seen: string | null }[] }>(
            centralUrl,
            key,
            "/v1/devices",
          ),
        (list) => list.data.some((row) => row.serial === serial && row.status === "online"),
        15_000,
      );
      expect(gateways.data.map((row) => [row.serial, row.status])).toEqual([[serial, "online"]]);
      expect(Date.parse(gateways.data[0]?.last_seen ?? "")).toBeGreaterThan(Date.now() - 120_000);
      expect(gateways.data.map((row) => row.serial)).not.toContain(other);
      const registers = await until(
        () =>
          getJson<{ data: { name: string; latest_value: number | null }[] }>(
            centralUrl,
            key,
            `/v1/devices/${gateways.data[0]?.id}/registers`,
          ),
        (list) => list.data.every((row) => row.latest_value !== null),
      );
      expect(registers.data.map((row) => [row.name, row.latest_value])).toEqual([
        ["r0", 100],
        ["r1", 101],
      ]);
    }
  }, 60_000);

  test("a site that names another site's gateway is refused, says so in /healthz, and changes nothing", async () => {
    const peer = await startModbusPeer();
    peers.push(peer);
    const token = await cli([
      "edges",
      "create",
      "--data",
      join(workDir, "central"),
      "--org",
      "globex",
      "--name",
      "intruder",
    ]);
    const configPath = join(workDir, "intruder.yaml");
    const uplink = `uplink: { url: "${centralUrl}", token: ${token}, check_interval_s: 1 }\n`;
    writeFileSync(configPath, peerSiteYaml({ serial: "NORTH-1", port: peer.port, before: uplink }), { mode: 0o600 });
    const process = startCli([
      "serve",
      "--config",
      configPath,
      "--data",
      join(workDir, "intruder"),
      "--host",
      "127.0.0.1",
      "--port",
      "0",
    ]);
    const intruder: Box = { name: "intruder", dataDir: "", process, url: await process.waitFor(servedUrl), key: "" };
    sites.push(intruder);
    const refused = await until(
      () => siteHealth(intruder),
      (answer) => answer.body.uplink?.state === "refused",
      15_000,
    );
    expect(refused.code).toBe(503);
    expect(refused.body.uplink?.reason).toContain("conflict");
    expect(refused.body.uplink?.reason).toContain("NORTH-1");
    const acme = await getJson<{ data: { serial: string; name: string }[] }>(
      centralUrl,
      centralKeys.get("acme") ?? "",
      "/v1/devices",
    );
    expect(acme.data.map((row) => row.serial)).toEqual(["NORTH-1"]);
    const globex = await getJson<{ data: { serial: string }[] }>(
      centralUrl,
      centralKeys.get("globex") ?? "",
      "/v1/devices",
    );
    expect(globex.data.map((row) => row.serial)).toEqual(["SOUTH-1"]);
  }, 40_000);
});
