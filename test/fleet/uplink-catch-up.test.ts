/**
 * A site's link says what it is doing (docs/fleet.md, "Sites" and "Forwarding"),
 * on real processes: a central `fieldhub serve`, a site `fieldhub serve` polling a
 * pymodbus peer with 30 days of history imported, and between them a proxy in the
 * test that paces the readings batches (so a catch-up lasts long enough to watch),
 * cuts the answer of one batch after the central stored it, and answers 502 while
 * the central is down. The site's /healthz is read every 40 ms throughout:
 * - `connected` with its organisation and site from the central's first answer,
 *   `catching_up` while the backlog drains, never `connecting` once readings flow;
 * - the batch whose answer was lost counted once the central's positions show it
 *   (forwarded = acknowledged + that batch), not one batch short;
 * - the central killed (-9) mid-catch-up and started again: `connected` and
 *   catching up again from its first answer, before the round ends;
 * - at the end `forwarded_readings` equals the readings of the site on the central.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { UplinkReport } from "../../src/lib/uplink-report.ts";
import { hasPymodbus, peerSiteYaml, startModbusPeer } from "../faults/harness/modbus-peer.ts";
import { freePort, type RunningCli, servedUrl, startCli } from "../harness/cli.ts";
import { centralYaml, cli, importSiteHistory, readKey, startCentral, storedTimes, until } from "./harness.ts";

type Uplink = UplinkReport;

const historyDays = 30;
const historyStart = Math.floor(Date.now() / 60_000) * 60_000 - (historyDays * 24 * 60 + 10) * 60_000;
const historyReadings = historyDays * 24 * 60 * 2;
const batch = 10_000;

/**
 * The central behind a proxy: each readings batch held `paceMs` before it goes on
 * (after `beforeBatch`, with its number from 1); the answer to batch `cutAnswerOf`
 * lost after the central stored it (502, as a balancer answers a request cut off
 * once sent); 502 while the central is down.
 */
function startProxy(
  centralUrl: string,
  options: { paceMs: number; cutAnswerOf: number; beforeBatch(number: number): Promise<void> },
) {
  let readingsBatches = 0;
  let cut = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const isReadings = request.method === "POST" && url.pathname === "/edge/v1/readings";
      const body = request.method === "GET" ? undefined : await request.arrayBuffer();
      const number = isReadings ? ++readingsBatches : 0;
      if (isReadings) {
        await Bun.sleep(options.paceMs);
        await options.beforeBatch(number);
      }
      let response: Response;
      try {
        response = await fetch(`${centralUrl}${url.pathname}`, {
          method: request.method,
          headers: { authorization: request.headers.get("authorization") ?? "", "content-type": "application/json" },
          body,
        });
      } catch (error) {
        return new Response(`central: ${String(error)}`, { status: 502 });
      }
      const answer = await response.arrayBuffer();
      if (isReadings && response.ok && number === options.cutAnswerOf) {
        cut++;
        // The central stored the batch; its answer does not reach the site (a balancer's answer to a cut-off request).
        return new Response("upstream connection lost", { status: 502 });
      }
      return new Response(answer, {
        status: response.status,
        headers: { "content-type": response.headers.get("content-type") ?? "application/json" },
      });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, cut: () => cut, stop: () => server.stop(true) };
}

describe.skipIf(!hasPymodbus)("a site's link during a catch-up (needs Debian's python3-pymodbus)", () => {
  let workDir: string;
  let centralPort: number;
  let central: RunningCli | undefined;
  let site: RunningCli | undefined;
  let siteUrl: string;
  let proxy: ReturnType<typeof startProxy>;
  let peer: Awaited<ReturnType<typeof startModbusPeer>>;
  const samples: { at: number; uplink: Uplink }[] = [];
  let sampling = true;
  let sampler: Promise<void> = Promise.resolve();
  const killBefore = 5;
  const killed = Promise.withResolvers<void>();

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), "fieldhub-catch-up-"));
    writeFileSync(join(workDir, "central.yaml"), centralYaml);
    centralPort = freePort();
    central = await startCentral(workDir, centralPort);
    proxy = startProxy(`http://127.0.0.1:${centralPort}`, {
      paceMs: 300,
      cutAnswerOf: 2,
      // Batch 5 (the fourth of the history after the lost one) finds the central killed.
      async beforeBatch(number) {
        if (number !== killBefore) return;
        central?.proc.kill("SIGKILL");
        await central?.proc.exited;
        killed.resolve();
      },
    });
    peer = await startModbusPeer();
    const token = await cli([
      "edges",
      "create",
      "--data",
      join(workDir, "central"),
      "--org",
      "acme",
      "--name",
      "north",
    ]);
    const uplink = `uplink: { url: "${proxy.url}", token: ${token}, check_interval_s: 1 }\nstorage: { commit_interval_s: 1 }\n`;
    const configPath = join(workDir, "site.yaml");
    writeFileSync(
      configPath,
      peerSiteYaml({ serial: "NORTH-1", port: peer.port, storageIntervalS: 60, before: uplink }),
      {
        mode: 0o600,
      },
    );
    const dataDir = join(workDir, "site");
    await importSiteHistory({
      workDir,
      dataDir,
      configPath,
      serial: "NORTH-1",
      start: historyStart,
      minutes: historyDays * 24 * 60,
      value: (minute, register) => (minute * 3 + register.length) % 400,
    });
    site = startCli(["serve", "--config", configPath, "--data", dataDir, "--host", "127.0.0.1", "--port", "0"]);
    siteUrl = await site.waitFor(servedUrl);
    sampler = (async () => {
      while (sampling) {
        try {
          const health = (await (await fetch(`${siteUrl}/healthz`)).json()) as { uplink?: Uplink };
          if (health.uplink !== undefined) samples.push({ at: Date.now(), uplink: health.uplink });
        } catch {
          // the site is stopping
        }
        await Bun.sleep(40);
      }
    })();
  }, 90_000);

  afterAll(async () => {
    sampling = false;
    await sampler;
    await site?.stop();
    await central?.stop();
    proxy?.stop();
    await peer?.stop();
    if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
  });

  const latest = () => samples[samples.length - 1]?.uplink;
  const waitFor = async (accept: (uplink: Uplink) => boolean, timeoutMs = 60_000): Promise<Uplink> =>
    (await until(
      () => latest(),
      (uplink) => uplink !== undefined && accept(uplink),
      timeoutMs,
      20,
    )) as Uplink;

  test("connected and catching up from the first answer; a lost answer counted from the positions; a central killed mid-catch-up", async () => {
    // 1. The first round: connected with its organisation and site, catching up, long before the round ends.
    await waitFor((uplink) => uplink.forwarded_readings >= 2 * batch);
    const firstRound = samples.filter((sample) => sample.uplink.complete_through === null);
    const catchingUp = firstRound.filter(
      ({ uplink }) =>
        uplink.state === "connected" &&
        uplink.catching_up &&
        uplink.organization === "acme" &&
        uplink.site === "north" &&
        uplink.forwarded_readings > 0,
    );
    expect(catchingUp.length).toBeGreaterThan(0);
    // Once the central answered, never `connecting` again (before: the whole first round).
    const firstConnected = samples.findIndex((sample) => sample.uplink.state === "connected");
    expect(firstConnected).toBeGreaterThanOrEqual(0);
    expect(samples.slice(firstConnected).filter((sample) => sample.uplink.state === "connecting")).toEqual([]);
    expect(samples.filter((s) => s.uplink.state === "connecting" && s.uplink.forwarded_readings > 0)).toEqual([]);

    // 2. The second batch's answer was lost after the central stored it: counted once the positions show it.
    // (Batches 3 and 4 went through before batch 5 found the central killed.)
    await killed.promise;
    expect(proxy.cut()).toBe(1);
    const lost = samples.find((sample) => sample.uplink.unconfirmed_readings > 0);
    console.log(`answer lost: ${JSON.stringify(lost?.uplink)}`);
    expect(lost?.uplink.unconfirmed_readings).toBe(batch);
    expect(lost?.uplink.state).toBe("unreachable");
    expect(lost?.uplink.forwarded_readings).toBe(batch);
    // The next round's positions show the batch stored: counted, and not sent again.
    const settled = samples.find((sample) => sample.at > (lost?.at ?? 0) && sample.uplink.unconfirmed_readings === 0);
    expect(settled?.uplink.forwarded_readings).toBeGreaterThanOrEqual(2 * batch);
    expect((settled?.uplink.forwarded_readings ?? 0) - (settled?.uplink.acknowledged_readings ?? 0)).toBe(batch);

    // 3. The central killed mid-catch-up, started again: connected and catching up from its first answer.
    const away = await waitFor((uplink) => uplink.state === "unreachable", 15_000);
    expect(away.catching_up).toBe(false);
    expect(away.forwarded_readings).toBeLessThan(historyReadings);
    const killedAt = samples.length;
    central = await startCentral(workDir, centralPort);
    const done = await waitFor((uplink) => uplink.complete_through !== null && uplink.state === "connected");
    const afterRestart = samples.slice(killedAt);
    const resumed = afterRestart.filter(
      ({ uplink }) => uplink.state === "connected" && uplink.catching_up && uplink.complete_through === null,
    );
    console.log(
      `after the restart: ${resumed.length} samples connected and catching up before the round ended; first ${JSON.stringify(resumed[0]?.uplink)}`,
    );
    expect(resumed.length).toBeGreaterThan(0);
    expect(resumed[0]?.uplink.forwarded_readings).toBeLessThan(historyReadings);
    expect(done.catching_up).toBe(false);
    expect(done.forwarded_readings).toBeGreaterThanOrEqual(historyReadings);

    // 4. The counters say what the central has: every reading of the site there once, forwarded_readings that many.
    const centralKey = await readKey(join(workDir, "central"), "acme");
    const since = new Date(historyStart - 60_000).toISOString();
    const countAtCentral = async () => {
      const times = await storedTimes(
        `http://127.0.0.1:${centralPort}`,
        centralKey,
        "NORTH-1",
        since,
        new Date(Date.now() + 60_000).toISOString(),
      );
      return [...(times ?? new Map<string, string[]>()).values()].reduce((sum, list) => sum + list.length, 0);
    };
    // Polled readings keep coming: compare when no batch went between two reads of the site.
    const agreed = await until(
      async () => {
        const before = latest()?.forwarded_readings;
        const atCentral = await countAtCentral();
        return { before, atCentral, after: latest() };
      },
      ({ before, atCentral, after }) =>
        before === after?.forwarded_readings && after?.unconfirmed_readings === 0 && atCentral === before,
      20_000,
    );
    console.log(
      `at the end: central has ${agreed.atCentral}, site says forwarded ${agreed.after?.forwarded_readings}, acknowledged ${agreed.after?.acknowledged_readings}`,
    );
    expect(agreed.atCentral).toBeGreaterThanOrEqual(historyReadings);
    // The one batch whose answer was lost and that the central had: on the central, never acknowledged.
    expect((agreed.after?.forwarded_readings ?? 0) - (agreed.after?.acknowledged_readings ?? 0)).toBe(batch);
    const metrics = await (await fetch(`${siteUrl}/metrics`)).text();
    expect(metrics).toMatch(/^fieldhub_uplink_catching_up 0$/m);
    expect(metrics).toMatch(/^fieldhub_uplink_acknowledged_readings_total \d+$/m);
  }, 120_000);
});
