/**
 * The admin API's view of a site's link to its central (docs/admin.md, "Central"),
 * on real processes: a central `fieldhub serve`, an edge token made there with
 * `fieldhub edges create`, a site `fieldhub serve` polling a pymodbus peer with a
 * day of history imported before its first start, and a box without an uplink.
 * GET /admin/api/uplink says connected with the forwarding progress and lag (the
 * same presentation as /healthz, plus the central's URL, never the token), says
 * `configured: false` on a box of its own, `unreachable` once the central is gone,
 * and answers 401 problem+json without a session. The central's own admin API
 * lists its sites (GET /admin/api/edges) with each token's last session check.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { UplinkView } from "../../src/lib/uplink-report.ts";
import { adminSession } from "../faults/harness/admin-session.ts";
import { hasPymodbus, peerSiteYaml, startModbusPeer } from "../faults/harness/modbus-peer.ts";
import { freePort, type RunningCli, servedUrl, startCli } from "../harness/cli.ts";
import { centralYaml, cli, importSiteHistory, startCentral, until } from "./harness.ts";

/** One day of history a minute apart for r0 and r1 (2,880 readings), ending ten minutes ago. */
const historyMinutes = 24 * 60;
const historyEnd = Math.floor(Date.now() / 60_000) * 60_000 - 10 * 60_000;
const importedReadings = historyMinutes * 2;

let workDir: string;
let centralUrl: string;
let central: RunningCli | undefined;
let peer: Awaited<ReturnType<typeof startModbusPeer>> | undefined;
let site: RunningCli | undefined;
let siteUrl: string;
let token: string;
let owner: Awaited<ReturnType<typeof adminSession>>;
let viewer: Awaited<ReturnType<typeof adminSession>>;
let lone: RunningCli | undefined;
let loneUrl: string;

type Connected = Extract<UplinkView, { configured: true }>;

async function view(session = owner): Promise<Connected> {
  const response = await session.get("/admin/api/uplink");
  if (response.status !== 200) throw new Error(`GET /admin/api/uplink: ${response.status} ${await response.text()}`);
  return (await response.json()) as Connected;
}

describe.skipIf(!hasPymodbus)("the admin API's view of the uplink (needs Debian's python3-pymodbus)", () => {
  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), "fieldhub-uplink-admin-"));
    writeFileSync(join(workDir, "central.yaml"), centralYaml);
    const centralPort = freePort();
    centralUrl = `http://127.0.0.1:${centralPort}`;
    central = await startCentral(workDir, centralPort);
    token = await cli(["edges", "create", "--data", join(workDir, "central"), "--org", "acme", "--name", "north"]);

    peer = await startModbusPeer();
    const configPath = join(workDir, "site.yaml");
    const uplink = `uplink: { url: "${centralUrl}", token: ${token}, check_interval_s: 1 }\nstorage: { commit_interval_s: 1 }\n`;
    writeFileSync(configPath, peerSiteYaml({ serial: "GW-N", port: peer.port, storageIntervalS: 60, before: uplink }), {
      mode: 0o600,
    });
    const dataDir = join(workDir, "site");
    await importSiteHistory({
      workDir,
      dataDir,
      configPath,
      serial: "GW-N",
      start: historyEnd - historyMinutes * 60_000,
      minutes: historyMinutes,
      value: (minute) => (historyMinutes - minute) % 500,
    });
    site = startCli(["serve", "--config", configPath, "--data", dataDir, "--host", "127.0.0.1", "--port", "0"]);
    siteUrl = await site.waitFor(servedUrl);
    owner = await adminSession(siteUrl, dataDir);
    viewer = await adminSession(siteUrl, dataDir, { user: "watcher", role: "viewer" });

    const lonePath = join(workDir, "lone.yaml");
    writeFileSync(lonePath, "organizations:\n  - key: site\n    name: On its own\n");
    lone = startCli([
      "serve",
      "--config",
      lonePath,
      "--data",
      join(workDir, "lone"),
      "--host",
      "127.0.0.1",
      "--port",
      "0",
    ]);
    loneUrl = await lone.waitFor(servedUrl);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([site?.stop(), lone?.stop()]);
    await central?.stop();
    await peer?.stop();
    if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
  });

  test("without a session: 401 problem+json, nothing of the link", async () => {
    const response = await fetch(`${siteUrl}/admin/api/uplink`);
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    const body = (await response.json()) as { code: string };
    expect(body.code).toBe("unauthorized");
    expect(JSON.stringify(body)).not.toContain(centralUrl);
  });

  test("connected: the central's URL, organisation and site, the day of history forwarded, a lag of seconds", async () => {
    const connected = await until(
      () => view(),
      (body) => body.state === "connected" && body.complete_through !== null,
      20_000,
    );
    expect(connected).toMatchObject({
      configured: true,
      state: "connected",
      reason: null,
      central_url: centralUrl,
      organization: "acme",
      site: "north",
    });
    // The imported day and whatever was polled since: everything up to complete_through is at the central.
    expect(connected.forwarded_readings).toBeGreaterThanOrEqual(importedReadings);
    expect(Date.parse(connected.forwarded_through ?? "")).toBeGreaterThanOrEqual(historyEnd - 60_000);
    expect(Date.now() - Date.parse(connected.last_contact_at ?? "")).toBeLessThan(10_000);
    expect(connected.lag_seconds).toBeGreaterThanOrEqual(0);
    expect(connected.lag_seconds).toBeLessThan(10);
    expect(Date.parse(connected.since)).toBeLessThanOrEqual(Date.parse(connected.last_contact_at ?? ""));
    expect(JSON.stringify(connected)).not.toContain(token);
    expect((await owner.get("/admin/api/uplink")).headers.get("cache-control")).toBe("no-store");
  });

  test("the same presentation as /healthz, where the central's URL is not shown", async () => {
    const health = (await (await fetch(`${siteUrl}/healthz`)).json()) as { uplink: Record<string, unknown> };
    const admin = await view();
    const { configured, central_url, ...report } = admin;
    expect(Object.keys(health.uplink).sort()).toEqual(Object.keys(report).sort());
    for (const field of ["state", "organization", "site", "reason"] as const)
      expect({ field, value: health.uplink[field] }).toEqual({ field, value: report[field] });
    expect(JSON.stringify(health)).not.toContain(centralUrl);
    expect({ configured, central_url }).toEqual({ configured: true, central_url: centralUrl });
  });

  test("a viewer reads it too", async () => {
    expect(await view(viewer)).toMatchObject({ configured: true, state: "connected", central_url: centralUrl });
  });

  test("a box without an uplink says so: configured false, not an error", async () => {
    const session = await adminSession(loneUrl, join(workDir, "lone"));
    const response = await session.get("/admin/api/uplink");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ configured: false });
  });

  test("the central lists its sites: name, organisation, prefix, status, created and the last session check; never a token", async () => {
    const centralData = join(workDir, "central");
    const spare = await cli(["edges", "create", "--data", centralData, "--org", "acme", "--name", "spare"]);
    await cli(["edges", "revoke", "--data", centralData, spare.slice(0, 12)]);
    const unauthenticated = await fetch(`${centralUrl}/admin/api/edges`);
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get("content-type")).toBe("application/problem+json");

    const session = await adminSession(centralUrl, centralData, { user: "watcher", role: "viewer" });
    const response = await session.get("/admin/api/edges");
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain(token);
    expect(text).not.toContain(spare);
    const { data } = JSON.parse(text) as { data: Record<string, string | null>[] };
    expect(data.map((edge) => [edge.name, edge.organization, edge.prefix, edge.status])).toEqual([
      ["spare", "acme", spare.slice(0, 12), "revoked"],
      ["north", "acme", token.slice(0, 12), "active"],
    ]);
    const north = data[1] ?? {};
    // The site checks every second: its last use is this minute's (written at most once a minute).
    expect(Date.now() - Date.parse(north.last_used_at ?? "")).toBeLessThan(65_000);
    expect(Date.parse(north.created_at ?? "")).toBeLessThanOrEqual(Date.parse(north.last_used_at ?? ""));
    expect(data[0]?.last_used_at).toBeNull();
    expect(data[0]?.revoked_at).not.toBeNull();

    // `fieldhub edges list --json` shows the same shape, and the table names the last use.
    expect(JSON.parse(await cli(["edges", "list", "--data", centralData, "--json"]))).toEqual(data);
    expect(await cli(["edges", "list", "--data", centralData])).toContain(`last used ${north.last_used_at}`);
  });

  test("the central stopped: unreachable with the reason, last contact kept, the lag growing", async () => {
    const before = await view();
    await central?.stop();
    central = undefined;
    const away = await until(
      () => view(),
      (body) => body.state === "unreachable",
      15_000,
    );
    expect(away.reason).toBeTruthy();
    expect(away.central_url).toBe(centralUrl);
    expect(away.last_contact_at).not.toBeNull();
    expect(Date.parse(away.last_contact_at ?? "")).toBeGreaterThanOrEqual(Date.parse(before.last_contact_at ?? ""));
    const later = await until(
      () => view(),
      (body) => body.lag_seconds > away.lag_seconds,
      5_000,
    );
    expect(later.state).toBe("unreachable");
    expect(later.complete_through).toBe(away.complete_through);
  });
});
