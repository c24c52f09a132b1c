/**
 * Several central processes as one (docs/fleet.md, step 4), proved with `kill -9`
 * of a real `fieldhub serve` on a private PostgreSQL shared by two of them:
 *
 * 1. During a webhook burst (device.online/offline events a site reports over the
 *    edge API): every event reaches the receiver, each delivery verifies with
 *    `standardwebhooks`, the survivor sends the killed process's leased messages
 *    once their lease (FIELDHUB_WEBHOOK_LEASE_S) has run out, the only duplicates
 *    are messages in flight at the kill, and the killed process restarted sends
 *    nothing again.
 * 2. During a site's forwarded burst through a load balancer in front of both: the
 *    site goes on through the other process, and every register's readings on the
 *    central equal the site's, exactly once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hasPymodbus, peerSiteYaml, startModbusPeer } from "../faults/harness/modbus-peer.ts";
import { metricValue } from "../faults/harness/serve.ts";
import { startVerifyingReceiver } from "../faults/harness/webhook-receivers.ts";
import { freePort, type RunningCli, servedUrl, startCli } from "../harness/cli.ts";
import { type PrivatePostgres, postgresAvailable, postgresMissingReason, startPostgres } from "../harness/postgres.ts";
import {
  allReadings,
  centralYaml,
  cli,
  getJson,
  importSiteHistory,
  readKey,
  startBalancer,
  startCentral,
  until,
} from "./harness.ts";

/** Short, so the takeover fits the test; the default is 60 s (docs/fleet.md, "Webhook leases"). */
const leaseS = 5;

interface Central {
  workDir: string;
  port: number;
  url: string;
  process: RunningCli;
}

let workDir: string;
let pg: PrivatePostgres | undefined;
let env: Record<string, string>;
const centrals: Central[] = [];
let peer: Awaited<ReturnType<typeof startModbusPeer>> | undefined;
let site: RunningCli | undefined;
let balancer: ReturnType<typeof startBalancer> | undefined;
let receiver: ReturnType<typeof startVerifyingReceiver> | undefined;

async function launchCentral(name: string): Promise<Central> {
  const dir = join(workDir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "central.yaml"), centralYaml);
  const port = freePort();
  const process = await startCentral(dir, port, env);
  return { workDir: dir, port, url: `http://127.0.0.1:${port}`, process };
}

async function restart(central: Central): Promise<void> {
  central.process = await startCentral(central.workDir, central.port, env);
}

function killHard(central: Central): Promise<number> {
  central.process.proc.kill("SIGKILL");
  return central.process.proc.exited;
}

const dataDirOf = (central: Central) => join(central.workDir, "central");

async function send(base: string, token: string, method: string, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

// The forwarding site's history before it starts: 45 days a minute apart for r0 and r1 (129,600 readings, 13 batches).
const historyDays = 45;
const historyStart = Math.floor(Date.now() / 60_000) * 60_000 - (historyDays * 24 * 60 + 10) * 60_000;
const historyReadings = historyDays * 24 * 60 * 2;

async function prepareSite(token: string, uplinkUrl: string): Promise<{ configPath: string; dataDir: string }> {
  peer = await startModbusPeer();
  const uplink = `uplink: { url: "${uplinkUrl}", token: ${token}, check_interval_s: 1 }\nstorage: { commit_interval_s: 1 }\n`;
  const configPath = join(workDir, "site.yaml");
  writeFileSync(configPath, peerSiteYaml({ serial: "EAST-1", port: peer.port, storageIntervalS: 60, before: uplink }), {
    mode: 0o600,
  });
  const dataDir = join(workDir, "site");
  await importSiteHistory({
    workDir,
    dataDir,
    configPath,
    serial: "EAST-1",
    start: historyStart,
    minutes: historyDays * 24 * 60,
    value: (minute) => (minute * 3) % 700,
  });
  return { configPath, dataDir };
}

interface SiteHealth {
  uplink?: { state: string; forwarded_readings: number; complete_through: string | null };
}

describe.skipIf(!postgresAvailable || !hasPymodbus)(
  `kill -9 of a central process (${postgresAvailable ? "needs Debian's python3-pymodbus" : postgresMissingReason})`,
  () => {
    beforeAll(async () => {
      workDir = mkdtempSync(join(tmpdir(), "fieldhub-central-kill-"));
      pg = await startPostgres();
      env = { FIELDHUB_DATABASE_URL: await pg.database("central"), FIELDHUB_WEBHOOK_LEASE_S: String(leaseS) };
      // The first applies the migrations; the second starts on them.
      centrals.push(await launchCentral("central-a"));
      centrals.push(await launchCentral("central-b"));
    }, 90_000);

    afterAll(async () => {
      for (const central of centrals) {
        for (const line of central.process.stdout().split("\n"))
          if (line.includes('"level":50')) console.log(line.slice(0, 1500));
      }
      await site?.stop();
      for (const central of centrals) await central.process.stop();
      balancer?.stop();
      receiver?.stop();
      await peer?.stop();
      await pg?.stop();
      if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
    });

    test("a webhook burst: the central delivering is killed; every event arrives, signed, its leased messages sent by the other after the lease", async () => {
      const [a, b] = centrals as [Central, Central];
      // A slow receiver: each central has 4 attempts in flight to it, so the burst lasts seconds.
      const hook = startVerifyingReceiver({ delayMs: 100 });
      receiver = hook;
      const endpoint = JSON.parse(
        await cli(["endpoints", "create", "--data", dataDirOf(a), "--org", "acme", "--url", hook.url, "--json"], env),
      ) as { id: string; secret: string };
      hook.useSecret(endpoint.secret);

      // A site over the edge API, through B: one gateway, then its status flipped again and again.
      const token = await cli(["edges", "create", "--data", dataDirOf(a), "--org", "acme", "--name", "flapper"], env);
      const gatewayId = crypto.randomUUID();
      await send(b.url, token, "PUT", "/edge/v1/inventory", {
        gateways: [
          {
            id: gatewayId,
            serial: "FLAP-1",
            name: "Flapping gateway",
            customer: null,
            heartbeatMs: 5_000,
            firmwareVer: null,
            ipEth: null,
            ipWifi: null,
            ip4g: null,
            signal4g: null,
            modbusDevices: [],
          },
        ],
      });
      const changes = 300;
      const producing = (async () => {
        for (let index = 0; index < changes; index++) {
          const status = index % 2 === 0 ? "online" : "offline";
          await send(b.url, token, "PUT", "/edge/v1/status", {
            gateways: [{ id: gatewayId, status, last_seen: Date.now() }],
          });
        }
      })();

      // Kill A while it has attempts in flight (the receiver holds each 100 ms).
      await until(
        async () => ({
          arrived: new Set(hook.arrivals.map((arrival) => arrival.id)).size,
          inFlight: await metricValue(a.url, "fieldhub_webhook_in_flight"),
        }),
        (seen) => seen.arrived >= 40 && seen.inFlight > 0,
        30_000,
        5,
      );
      await killHard(a);
      const killedAt = Date.now();
      const arrivedBeforeKill = new Set(hook.arrivals.map((arrival) => arrival.id));
      await producing;
      expect(arrivedBeforeKill.size).toBeLessThan(changes);

      // Every event the central recorded for the endpoint, read from its delivery log (CLI), is delivered.
      const log = await until(
        async () =>
          JSON.parse(
            await cli(
              ["endpoints", "deliveries", "--data", dataDirOf(b), endpoint.id, "--limit", "1000", "--json"],
              env,
            ),
          ) as { message_id: string; type: string; status: string }[],
        (rows) => rows.length === changes && rows.every((row) => row.status === "delivered"),
        30_000,
        500,
      );
      const lastArrivalAfterMs = Math.max(...hook.arrivals.map((arrival) => arrival.at)) - killedAt;
      const recorded = new Set(log.map((row) => row.message_id));
      expect(recorded.size).toBe(changes);
      expect(log.filter((row) => row.type === "device.online")).toHaveLength(changes / 2);
      const arrivals = [...hook.arrivals];
      expect(new Set(arrivals.map((arrival) => arrival.id))).toEqual(recorded);
      expect(hook.invalid()).toBe(0);

      // Duplicates only of messages in flight at the kill: sent by A, never settled, sent again by B after the lease.
      const count = new Map<string, number>();
      for (const arrival of arrivals) count.set(arrival.id, (count.get(arrival.id) ?? 0) + 1);
      const duplicated = [...count.entries()].filter(([, n]) => n > 1).map(([id]) => id);
      for (const id of duplicated) {
        expect(arrivedBeforeKill.has(id)).toBe(true);
        expect(count.get(id)).toBe(2);
      }
      // A's claims (at most its 4 attempts per endpoint) were in flight: at least one was taken over.
      expect(duplicated.length).toBeGreaterThanOrEqual(1);
      expect(duplicated.length).toBeLessThanOrEqual(4);
      const takeoverMs = duplicated.map((id) => {
        const second = arrivals.filter((arrival) => arrival.id === id)[1];
        return (second?.at ?? 0) - killedAt;
      });
      // Taken over only once the lease ran out (claimed at most a few hundred ms before the kill), within a poll or two after.
      for (const ms of takeoverMs) {
        expect(ms).toBeGreaterThan(leaseS * 1000 - 1_000);
        expect(ms).toBeLessThan(leaseS * 1000 + 3_000);
      }
      console.log(
        `webhook burst: ${changes} events, ${arrivedBeforeKill.size} arrived before the kill; ` +
          `${duplicated.length} in flight at A taken over by B ${takeoverMs.join(", ")} ms after the kill (lease ${leaseS} s); ` +
          `the last arrival ${lastArrivalAfterMs} ms after the kill; ${arrivals.length - changes} duplicate deliveries`,
      );

      // A restarted sends nothing again: every message is settled as delivered.
      const before = hook.arrivals.length;
      await restart(a);
      await Bun.sleep(3_000);
      expect(hook.arrivals.length).toBe(before);
      expect(await metricValue(a.url, "fieldhub_webhook_attempts_total")).toBe(0);
      expect(await metricValue(b.url, "fieldhub_webhook_lost_claims_total")).toBe(0);
    }, 90_000);

    test("a forwarded burst through a load balancer: one central killed, the site goes on through the other, every reading once", async () => {
      const [a, b] = centrals as [Central, Central];
      balancer = startBalancer([a.url, b.url]);
      const token = await cli(["edges", "create", "--data", dataDirOf(b), "--org", "globex", "--name", "east"], env);
      const prepared = await prepareSite(token, balancer.url);
      site = startCli([
        "serve",
        "--config",
        prepared.configPath,
        "--data",
        prepared.dataDir,
        "--host",
        "127.0.0.1",
        "--port",
        "0",
      ]);
      const siteUrl = await site.waitFor(servedUrl);
      const health = async () => (await (await fetch(`${siteUrl}/healthz`)).json()) as SiteHealth;

      // Killed mid-burst (the central has part of the site's history, not all), while A stores a batch.
      const atKill = await until(
        health,
        (answer) =>
          (answer.uplink?.forwarded_readings ?? 0) > 0 && (balancer?.inFlight(0, "/edge/v1/readings") ?? 0) > 0,
        30_000,
        2,
      );
      await killHard(a);
      const killedAt = Date.now();
      const forwardedAtKill = atKill.uplink?.forwarded_readings ?? 0;
      expect(forwardedAtKill).toBeLessThan(historyReadings);

      // A round that began after the kill sent everything: through B alone.
      const complete = new Date(killedAt + 500).toISOString();
      await until(
        health,
        (answer) => answer.uplink?.state === "connected" && (answer.uplink.complete_through ?? "") >= complete,
        60_000,
        50,
      );
      const catchUpMs = Date.now() - killedAt;
      // The batch A was storing was cut off; then the balancer met the dead process and passed those requests to the live one.
      expect(balancer.cutOff()).toBe(1);
      expect(balancer.skipped()).toBeGreaterThan(0);
      console.log(
        `forwarded burst: central A killed with ${forwardedAtKill} of ${historyReadings} readings acknowledged; ` +
          `the site complete through B ${catchUpMs} ms after the kill; requests served by A, B: ${balancer.served().join(", ")}, ${balancer.cutOff()} cut off, ${balancer.skipped()} refused dials passed on`,
      );

      // A back: pages alternate between the two processes, each continuing the other's cursor.
      await restart(a);
      const centralKey = await readKey(dataDirOf(b), "globex", env);
      const siteKey = await readKey(prepared.dataDir, "site");
      const gateways = await getJson<{ data: { id: string; serial: string }[] }>(b.url, centralKey, "/v1/devices");
      expect(gateways.data.map((row) => row.serial)).toEqual(["EAST-1"]);
      const gatewayId = gateways.data[0]?.id ?? "";
      const registers = await getJson<{ data: { id: string; name: string }[] }>(
        b.url,
        centralKey,
        `/v1/devices/${gatewayId}/registers`,
      );
      expect(registers.data.map((row) => row.name)).toEqual(["r0", "r1"]);
      const since = new Date(historyStart - 60_000).toISOString();
      // Readings are committed within commit_interval_s (1 s): all stored before the cut were in that complete round.
      const cut = new Date(killedAt - 1_000).toISOString();
      for (const register of registers.data) {
        const onSite = await allReadings([siteUrl], siteKey, gatewayId, register.id, since, cut);
        const onCentral = await allReadings([a.url, b.url], centralKey, gatewayId, register.id, since, cut);
        expect(onSite.length).toBeGreaterThanOrEqual(historyDays * 24 * 60);
        // Exactly once: the same times and values, none missing, none twice.
        expect(onCentral).toEqual(onSite);
      }
    }, 120_000);
  },
);
