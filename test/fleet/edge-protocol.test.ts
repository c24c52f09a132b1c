/**
 * The /edge/v1 protocol declared once (docs/fleet.md, "The edge protocol"), on real
 * processes:
 * - a site `fieldhub serve` polling a pymodbus peer, with a day of history, forwards
 *   to a small fake central (Bun.serve here) that first answers `POST
 *   /edge/v1/readings` in a shape the site cannot read. The site names the mismatch
 *   (call, JSON pointer, the central's version) in /healthz and the admin API, logs
 *   it once, keeps polling and storing, asks again every round and counts nothing as
 *   forwarded; once the fake answers as declared, every reading arrives, counted
 *   once;
 * - a real central refuses malformed /edge request bodies with problem+json (never a
 *   500), and its replies fit the declared ones.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { edgeMessages } from "../../src/lib/edge-protocol/messages.ts";
import { readReply } from "../../src/lib/edge-protocol/read-reply.ts";
import type { UplinkView } from "../../src/lib/uplink-report.ts";
import { adminSession } from "../faults/harness/admin-session.ts";
import { hasPymodbus, peerSiteYaml, startModbusPeer } from "../faults/harness/modbus-peer.ts";
import { freePort, type RunningCli, servedUrl, startCli } from "../harness/cli.ts";
import {
  allReadings,
  centralYaml,
  cli,
  getJson,
  importSiteHistory,
  readKey,
  siteHealth,
  startCentral,
  until,
} from "./harness.ts";

const historyMinutes = 24 * 60;
const historyEnd = Math.floor(Date.now() / 60_000) * 60_000 - 10 * 60_000;
const fakeVersion = "9.9.0";
const expectedReason = `the central's answer to POST /edge/v1/readings does not fit this site's protocol: /stored: expected integer (central fieldhub ${fakeVersion})`;

/**
 * A central as small as the protocol allows: it accepts the site's calls and keeps
 * the readings it acknowledged. While `readable` is false it answers a readings
 * batch with `stored` as a string (what a central of another version might say)
 * and keeps nothing of it: the site cannot know what such a central did.
 */
function startFakeCentral() {
  const kept = new Set<string>();
  const fake = { readable: false, batchesAnsweredUnreadably: 0, readingsAcknowledged: 0, kept };
  const reply = (body: unknown) => Response.json(body, { headers: { "fieldhub-version": fakeVersion } });
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const route = `${request.method} ${path}`;
      if (route === "GET /edge/v1/session") return reply({ organization: "acme", site: "north", token_id: "t1" });
      if (route === "PUT /edge/v1/inventory") {
        const { gateways } = (await request.json()) as { gateways: unknown[] };
        return reply({ gateways: gateways.length, registers: 2 });
      }
      if (route === "GET /edge/v1/positions") {
        const positions: Record<string, number> = {};
        for (const key of kept) {
          const [register, ts] = key.split(" ") as [string, string];
          positions[register] = Math.max(positions[register] ?? 0, Number(ts));
        }
        return reply({ positions });
      }
      if (route === "POST /edge/v1/readings") {
        const { readings } = (await request.json()) as { readings: [string, number, number | null][] };
        if (!fake.readable) {
          fake.batchesAnsweredUnreadably++;
          return reply({ stored: String(readings.length), skipped: 0 });
        }
        let stored = 0;
        for (const [register, ts] of readings) {
          const key = `${register} ${ts}`;
          if (!kept.has(key)) stored++;
          kept.add(key);
        }
        fake.readingsAcknowledged += readings.length;
        return reply({ stored, skipped: readings.length - stored });
      }
      if (route === "PUT /edge/v1/status") {
        const { gateways } = (await request.json()) as { gateways: unknown[] };
        return reply({ gateways: gateways.length, changed: gateways.length });
      }
      if (route === "GET /edge/v1/alerts") return reply({ forwarded_through: 0, requests: [] });
      if (route === "POST /edge/v1/alerts") return reply({ alerts: 0, events: 0, recorded: 0 });
      return new Response("no such route", { status: 404 });
    },
  });
  return { fake, url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

describe.skipIf(!hasPymodbus)(
  "a site whose central answers what it cannot read (needs Debian's python3-pymodbus)",
  () => {
    let workDir: string;
    let central: ReturnType<typeof startFakeCentral>;
    let peer: Awaited<ReturnType<typeof startModbusPeer>> | undefined;
    let site: RunningCli | undefined;
    let siteUrl: string;
    let dataDir: string;

    beforeAll(async () => {
      workDir = mkdtempSync(join(tmpdir(), "fieldhub-edge-protocol-"));
      central = startFakeCentral();
      peer = await startModbusPeer();
      const configPath = join(workDir, "site.yaml");
      const uplink = `uplink: { url: "${central.url}", token: fhe_${"a".repeat(64)}, check_interval_s: 1 }\nstorage: { commit_interval_s: 1 }\n`;
      writeFileSync(
        configPath,
        peerSiteYaml({ serial: "GW-E", port: peer.port, storageIntervalS: 60, before: uplink }),
        {
          mode: 0o600,
        },
      );
      dataDir = join(workDir, "site");
      await importSiteHistory({
        workDir,
        dataDir,
        configPath,
        serial: "GW-E",
        start: historyEnd - historyMinutes * 60_000,
        minutes: historyMinutes,
        value: (minute) => minute % 500,
      });
      site = startCli(["serve", "--config", configPath, "--data", dataDir, "--host", "127.0.0.1", "--port", "0"]);
      siteUrl = await site.waitFor(servedUrl);
    }, 60_000);

    afterAll(async () => {
      await site?.stop();
      central?.stop();
      await peer?.stop();
      if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
    });

    test("the mismatch is named, logged once, retried every round, nothing counted; the site keeps polling and storing; once readable, every reading arrives once", async () => {
      const refused = await until(
        () => siteHealth({ url: siteUrl }),
        (answer) => answer.body.uplink?.state === "refused",
        30_000,
      );
      expect(refused.body.uplink?.reason).toBe(expectedReason);
      expect(refused.code).toBe(503);
      expect(refused.body.problems.join("\n")).toContain(expectedReason);
      expect(refused.body.uplink?.forwarded_readings).toBe(0);
      expect(refused.body.uplink?.forwarded_through).toBeNull();

      const owner = await adminSession(siteUrl, dataDir);
      const view = (await (await owner.get("/admin/api/uplink")).json()) as Extract<UplinkView, { configured: true }>;
      expect(view).toMatchObject({ configured: true, state: "refused", reason: expectedReason, forwarded_readings: 0 });

      // Polling and storing go on: the registers' latest values move, and a reading of a new storage period is stored.
      const key = await readKey(dataDir, "site");
      const latest = () => siteRegisters(siteUrl, key).then((registers) => registers.map((row) => row.latest_ts));
      const latestAtRefusal = await latest();
      const readingsAtRefusal = await siteReadings(siteUrl, key);
      await until(
        latest,
        (now) => now.every((ts, index) => ts !== null && ts > (latestAtRefusal[index] ?? "")),
        10_000,
      );
      await until(
        () => siteReadings(siteUrl, key),
        (now) => now.size > readingsAtRefusal.size,
        75_000,
        1_000,
      );

      const stillRefused = await siteHealth({ url: siteUrl });
      expect(stillRefused.body.uplink).toMatchObject({
        state: "refused",
        reason: expectedReason,
        forwarded_readings: 0,
      });
      // Asked again every round (check_interval_s: 1), logged once. The new period's
      // reading may come within a second of the refusal: wait for the rounds themselves.
      await until(
        async () => central.fake.batchesAnsweredUnreadably,
        (asked) => asked > 5,
        20_000,
      );
      const log = `${site?.stdout()}${site?.stderr()}`;
      expect(log.split("does not fit this site's protocol").length - 1).toBe(1);
      expect(central.fake.kept.size).toBe(0);

      central.fake.readable = true;
      const readableAt = Date.now();
      const connected = await until(
        () => siteHealth({ url: siteUrl }),
        (answer) =>
          answer.body.uplink?.state === "connected" &&
          (answer.body.uplink.complete_through ?? "") >= new Date(readableAt + 500).toISOString(),
        30_000,
      );
      expect(connected.code).toBe(200);
      console.log(
        `readable answers: complete ${Date.now() - readableAt} ms later; ${central.fake.batchesAnsweredUnreadably} batches answered unreadably before`,
      );
      // Every reading the site stored before the switch (committed within commit_interval_s) is at the central, once.
      const stored = await siteReadings(siteUrl, key);
      const cut = readableAt - 1_000;
      const storedBeforeCut = [...stored].filter((entry) => Number(entry.split(" ")[1]) < cut);
      expect(storedBeforeCut.length).toBeGreaterThan(historyMinutes * 2);
      expect(storedBeforeCut.filter((entry) => !central.fake.kept.has(entry))).toEqual([]);
      expect([...central.fake.kept].filter((entry) => !stored.has(entry))).toEqual([]);
      // Counted once each: what the central acknowledged in readable answers, no more.
      const uplink = (await siteHealth({ url: siteUrl })).body.uplink;
      expect(uplink?.forwarded_readings).toBe(central.fake.readingsAcknowledged);
      expect(central.fake.readingsAcknowledged).toBe(central.fake.kept.size);
    }, 150_000);
  },
);

/** The site's registers with their latest poll time, by its own /v1 API. */
async function siteRegisters(base: string, key: string) {
  const gateways = await getJson<{ data: { id: string }[] }>(base, key, "/v1/devices");
  const gateway = gateways.data[0];
  if (gateway === undefined) throw new Error("the site has no gateway");
  const registers = await getJson<{ data: { id: string; latest_ts: string | null }[] }>(
    base,
    key,
    `/v1/devices/${gateway.id}/registers`,
  );
  return registers.data.map((register) => ({ gatewayId: gateway.id, ...register }));
}

/** Every reading the site stored, as "register-id ts-ms" (the fake central's keys). */
async function siteReadings(base: string, key: string): Promise<Set<string>> {
  const since = new Date(historyEnd - (historyMinutes + 1) * 60_000).toISOString();
  const until = new Date(Date.now() + 60_000).toISOString();
  const readings = new Set<string>();
  for (const register of await siteRegisters(base, key)) {
    for (const [ts] of await allReadings([base], key, register.gatewayId, register.id, since, until)) {
      readings.add(`${register.id} ${Date.parse(ts)}`);
    }
  }
  return readings;
}

describe("the central's /edge door validates each request against the declared schema", () => {
  let workDir: string;
  let central: RunningCli | undefined;
  let centralUrl: string;
  let token: string;

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), "fieldhub-edge-door-"));
    writeFileSync(join(workDir, "central.yaml"), centralYaml);
    const port = freePort();
    centralUrl = `http://127.0.0.1:${port}`;
    central = await startCentral(workDir, port);
    token = await cli(["edges", "create", "--data", join(workDir, "central"), "--org", "acme", "--name", "north"]);
  }, 40_000);

  afterAll(async () => {
    await central?.stop();
    if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
  });

  const send = (method: string, path: string, body: string) =>
    fetch(`${centralUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
    });

  test("malformed bodies are refused with problem+json naming the field, never a 500", async () => {
    const cases: [string, string, string, string, string][] = [
      // A row is one of two tuples (with or without its aggregate): the row is named.
      ["POST", "/edge/v1/readings", '{"readings":[["r",-5,1]]}', "invalid_parameter", "readings.0"],
      ["POST", "/edge/v1/readings", '{"readings":"all"}', "invalid_parameter", "readings"],
      ["POST", "/edge/v1/readings", "{}", "invalid_parameter", "readings"],
      [
        "PUT",
        "/edge/v1/status",
        '{"gateways":[{"id":"g","status":"asleep","last_seen":null}]}',
        "invalid_parameter",
        "status",
      ],
      [
        "PUT",
        "/edge/v1/status",
        '{"gateways":[{"id":"g","status":"online","last_seen":null,"modbus_devices":[{"id":"d","status":"dead"}]}]}',
        "invalid_parameter",
        "modbus_devices.0",
      ],
      ["PUT", "/edge/v1/inventory", '{"gateways":[{"id":"not-a-uuid"}]}', "invalid_parameter", "gateways.0"],
      ["POST", "/edge/v1/alerts", '{"alerts":[],"events":[{"seq":0}]}', "invalid_parameter", "events.0"],
      ["POST", "/edge/v1/readings", '{"readings":[', "bad_request", ""],
    ];
    for (const [method, path, body, code, names] of cases) {
      const response = await send(method, path, body);
      const problem = (await response.json()) as { code: string; detail: string };
      expect({
        path,
        body,
        status: response.status,
        type: response.headers.get("content-type"),
        code: problem.code,
      }).toEqual({
        path,
        body,
        status: 400,
        type: "application/problem+json",
        code,
      });
      expect(problem.detail).toContain(names);
    }
  });

  test("its replies fit the declared ones and carry its version", async () => {
    const session = await fetch(`${centralUrl}/edge/v1/session`, { headers: { authorization: `Bearer ${token}` } });
    expect(session.headers.get("fieldhub-version")).toMatch(/^\d+\.\d+\.\d+/);
    expect(readReply(edgeMessages.session, await session.json())).toMatchObject({ ok: true });
    const positions = await fetch(`${centralUrl}/edge/v1/positions`, { headers: { authorization: `Bearer ${token}` } });
    expect(readReply(edgeMessages.positions, await positions.json())).toEqual({ ok: true, reply: { positions: {} } });
    const readings = await send("POST", "/edge/v1/readings", '{"readings":[]}');
    expect(readReply(edgeMessages.readings, await readings.json())).toEqual({
      ok: true,
      reply: { stored: 0, skipped: 0 },
    });
    const alerts = await fetch(`${centralUrl}/edge/v1/alerts`, { headers: { authorization: `Bearer ${token}` } });
    expect(readReply(edgeMessages.alertPosition, await alerts.json())).toEqual({
      ok: true,
      reply: { forwarded_through: 0, requests: [] },
    });
  });
});
