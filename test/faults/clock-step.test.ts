/**
 * The wall clock of a running `serve` is stepped with
 * libfaketime (test/faults/harness/clock.ts), as NTP steps a box without a
 * real-time clock. Stepping back after a day in the future stopped polling,
 * froze latest values in the future, never reported a dead device offline and
 * revived a key revoked "in the future"; a forward step past the retention
 * deleted the whole history. Wanted: scheduling, timeouts and heartbeats on
 * monotonic time; revocation a state; retention never pruning because of a jump.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Cleanup } from "./harness/cleanup.ts";
import { faketimeSkipReason, hasFaketime, steppableClock } from "./harness/clock.ts";
import { hasPymodbus, peerSiteYaml, startModbusPeer } from "./harness/modbus-peer.ts";
import { createKey, eventually, metricValue, runCliIn, startServe } from "./harness/serve.ts";

const cleanup = new Cleanup();
afterAll(() => cleanup.run());
if (!hasFaketime) console.warn(`skipping the clock-step fault tests: ${faketimeSkipReason}`);

function siteYaml(port: number, retentionDays = 365) {
  return peerSiteYaml({
    serial: "CLOCK",
    port,
    storageIntervalS: 60,
    before: `retention: { readings_days: ${retentionDays} }`,
  });
}

/** Stored history of the first register, oldest first, from an hour ago to two days ahead (Unix ms). */
async function historyOf(url: string, key: string): Promise<number[]> {
  const get = async <T>(path: string) =>
    (await (await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: T };
  const gatewayId = (await get<{ id: string }[]>("/v1/devices")).data[0]?.id;
  const registerId = (await get<{ id: string }[]>(`/v1/devices/${gatewayId}/registers`)).data[0]?.id;
  const since = new Date(Date.now() - 3_600_000).toISOString();
  const until = new Date(Date.now() + 2 * 86_400_000).toISOString();
  const page = await get<{ ts: string }[]>(
    `/v1/devices/${gatewayId}/readings?register_id=${registerId}&order=asc&limit=1000&since=${since}&until=${until}`,
  );
  return page.data.map((row) => Date.parse(row.ts));
}

async function startSteppedSite(name: string, retentionDays?: number) {
  const workDir = mkdtempSync(join(tmpdir(), `fieldhub-faults-clock-${name}-`));
  cleanup.add(() => rmSync(workDir, { recursive: true, force: true }));
  const clock = steppableClock(workDir);
  const peer = await startModbusPeer();
  cleanup.add(() => peer.kill());
  const server = await startServe({ workDir, yaml: siteYaml(peer.port, retentionDays), env: clock.env });
  cleanup.add(() => server.stop());
  const { key } = await createKey(server.dataDir, "site");
  const get = async <T>(path: string, withKey = key) => {
    const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${withKey}` } });
    return { status: response.status, body: (await response.json()) as T };
  };
  const gateway = async () => (await get<{ data: { id: string; status: string }[] }>("/v1/devices")).body.data[0];
  const history = () => historyOf(server.url, key);
  const latestTs = async () => {
    const id = (await gateway())?.id;
    const registers = await get<{ data: { latest_ts: string | null }[] }>(`/v1/devices/${id}/registers`);
    const ts = registers.body.data[0]?.latest_ts ?? null;
    return ts === null ? null : Date.parse(ts);
  };
  await eventually(latestTs, (ts) => ts !== null, 10_000);
  return { workDir, clock, peer, server, key, get, gateway, latestTs, history };
}

describe.skipIf(!hasFaketime || !hasPymodbus).concurrent("clock steps", () => {
  test("a day forward and back: polling goes on, latest values follow the clock, a dead device goes offline, a key revoked in the future stays revoked", async () => {
    const site = await startSteppedSite("step");
    const revoked = await createKey(site.server.dataDir, "site");

    site.clock.step("+1d");
    await Bun.sleep(2_000);
    // Revoked by the operator while the box believes it is tomorrow.
    const revoke = await runCliIn(site.clock.env, ["keys", "revoke", "--data", site.server.dataDir, revoked.id]);
    expect(revoke.code).toBe(0);
    expect((await site.get("/v1/devices", revoked.key)).status).toBe(401);

    site.clock.step("+0");
    const requestsBefore = await metricValue(site.server.url, "fieldhub_modbus_requests_total");
    await Bun.sleep(3_000);
    // Polling goes on.
    const requestsAfter = await metricValue(site.server.url, "fieldhub_modbus_requests_total");
    expect(requestsAfter).toBeGreaterThan(requestsBefore + 5);
    // Latest values are today's, not stuck in tomorrow.
    const latest = (await site.latestTs()) ?? 0;
    expect(Math.abs(latest - Date.now())).toBeLessThan(5_000);
    // Revocation is a state, whatever the clock says.
    const again = await site.get<{ code: string }>("/v1/devices", revoked.key);
    expect({ status: again.status, code: again.body.code }).toEqual({ status: 401, code: "api_key_revoked" });
    // A device that dies now is reported offline within its heartbeat (5 s).
    const stoppedAt = Date.now();
    await site.peer.stop();
    await eventually(
      async () => (await site.gateway())?.status,
      (status) => status === "offline",
      10_000,
    );
    console.log(
      `after the step back: ${requestsAfter - requestsBefore} Modbus requests in 3 s; latest_ts ${Date.now() - latest} ms old; offline ${Date.now() - stoppedAt} ms after the peer stopped`,
    );
  }, 40_000);

  test("stored history keeps the storage interval across steps back and forward and a restart", async () => {
    const site = await startSteppedSite("density");
    const intervalMs = 60_000; // the site's storage_interval_s
    const minGapMs = intervalMs - 5_000; // less the poll jitter allowed (docs/polling.md)
    const [first] = await eventually(site.history, (rows) => rows.length > 0, 10_000);
    // Back 40 s, among stored history: nothing stored near it.
    site.clock.step("-40s");
    await Bun.sleep(8_000);
    // A day ahead for a few seconds: less than an interval of monotonic time since
    // the last stored reading, so nothing is stored at tomorrow's time.
    site.clock.step("+1d");
    await Bun.sleep(4_000);
    // Looked at while the server's clock is ahead: the API shows history up to its own now.
    expect(await site.history()).toEqual([first ?? 0]);
    site.clock.step("+0");
    // A restart on the right clock starts from the newest stored reading.
    await site.server.stop();
    const restarted = await startServe({
      workDir: site.workDir,
      dataDir: site.server.dataDir,
      yaml: siteYaml(site.peer.port),
      env: site.clock.env,
    });
    cleanup.add(() => restarted.stop());
    const rows = await eventually(
      () => historyOf(restarted.url, site.key),
      (list) => list.length >= 2,
      75_000,
      1_000,
    );
    const gaps = rows.slice(1).map((ts, index) => ts - (rows[index] ?? 0));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(minGapMs);
  }, 120_000);

  test("a forward step past the retention for a few seconds deletes no history", async () => {
    const site = await startSteppedSite("retention", 1);
    const started = Date.now();
    const gatewayId = (await site.gateway())?.id;
    const readings = async () =>
      (await site.get<{ data: { ts: string }[] }>(`/v1/devices/${gatewayId}/readings?limit=1000&order=asc`)).body.data;
    const before = await eventually(readings, (rows) => rows.length > 0, 10_000);
    // serve's first prune runs 60 s after start: step three days ahead around it.
    await Bun.sleep(Math.max(0, started + 50_000 - Date.now()));
    site.clock.step("+3d");
    await eventually(
      () =>
        site.server
          .logLines()
          .some((line) => line.msg === "retention pruned readings" || line.msg === "retention pruning failed"),
      (done) => done,
      25_000,
      250,
    );
    site.clock.step("+0");
    const after = await readings();
    const kept = after.filter((row) => Date.parse(row.ts) <= Date.parse(before.at(-1)?.ts ?? ""));
    expect(kept.length).toBeGreaterThanOrEqual(before.length);
    const pruned = site.server.logLines().find((line) => line.msg === "retention pruned readings");
    expect(pruned?.held_by).toBe("clock_step");
    console.log(
      `first prune 3 days ahead: deleted ${pruned?.deleted}, held_by ${pruned?.held_by}, older_than ${pruned?.older_than}; ${kept.length} of ${before.length} readings kept`,
    );
  }, 100_000);
});
