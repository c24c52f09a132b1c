/**
 * `fieldhub demo` end to end (product: "A newcomer sees real data in one command";
 * docs/api.md section 5.6, the sandbox key): the real process on a free port, read through
 * HTTP with the fixed sandbox key, stopped with SIGTERM and started again on the
 * same data directory.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { demoSandboxKey } from "../../src/demo/demo-config.ts";
import { freePort, type RunningCli, startCli } from "../harness/cli.ts";

const minute = 60_000;
const day = 24 * 60 * minute;

const started: RunningCli[] = [];

function startDemo(port: number, dataDir: string): RunningCli {
  const running = startCli(["demo", "--port", String(port), "--data", dataDir, "--days", "3"]);
  started.push(running);
  return running;
}

/** Waits for the banner's last line (the curl example) and returns the banner. */
async function waitForBanner(demo: RunningCli, port: number, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  const lastLine = new RegExp(`curl -H "Authorization: Bearer [^"]+" http://127\\.0\\.0\\.1:${port}/v1/devices\\n`);
  while (Date.now() < deadline) {
    // The banner is on stderr beside JSON log lines (CI=true).
    if (lastLine.test(demo.stderr())) return demo.stderr();
    if (demo.proc.exitCode !== null) break;
    await Bun.sleep(25);
  }
  throw new Error(
    `demo printed no banner (exit ${demo.proc.exitCode}).\nstdout:\n${demo.stdout()}\nstderr:\n${demo.stderr()}`,
  );
}

function backfilled(banner: string): number {
  const match = /\((\d+) readings backfilled now\)/.exec(banner);
  if (match === null) throw new Error(`banner does not say how many readings were backfilled:\n${banner}`);
  return Number(match[1]);
}

let dataDir: string;
let port: number;
let baseUrl: string;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), "fieldhub-demo-e2e-"));
  port = freePort();
  baseUrl = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  for (const demo of started) await demo.stop(5_000);
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
});

async function get(path: string) {
  const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${demoSandboxKey}` } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${text}`);
  return { headers: response.headers, body: JSON.parse(text) as any };
}

interface Gateway {
  id: string;
  serial: string;
  status: string;
}
interface Register {
  id: string;
  name: string;
  data_type: string;
  scale_factor: number | null;
  latest_value: number | null;
  latest_raw_value: number | null;
  latest_ts: string | null;
}
interface Reading {
  register_id: string;
  ts: string;
  raw_value: number | null;
  value: number | null;
}
interface Alert {
  id: string;
  status: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

// What the first run showed, compared after the restart.
let firstStartedAt: number;
let firstBackfill: number;
let firstGatewayIds: string[];
let onlineGatewayIds: Set<string>;
let firstAlerts: Alert[];
let historyRegisterGateway: string;
let historyRegisterId: string;
let firstHistory: Reading[];

describe("fieldhub demo", () => {
  test("starts on the given port and prints the sandbox key", async () => {
    firstStartedAt = Date.now();
    const demo = startDemo(port, dataDir);
    const banner = await waitForBanner(demo, port);
    expect(banner).toContain(`fieldhub demo on ${baseUrl}`);
    expect(banner).toContain(demoSandboxKey);
    firstBackfill = backfilled(banner);
    // 3 days of 5-minute history for a dozen registers.
    expect(firstBackfill).toBeGreaterThan(3 * 288 * 10);
  }, 40_000);

  test("gateways in varied statuses, with the sandbox rate limit of 60", async () => {
    const { headers, body } = await get("/v1/devices");
    expect(headers.get("x-ratelimit-limit")).toBe("60");
    expect(Number(headers.get("x-ratelimit-remaining"))).toBeLessThan(60);
    const gateways = body.data as Gateway[];
    expect(body.meta.total).toBe(gateways.length);
    const statuses = new Set(gateways.map((gateway) => gateway.status));
    for (const status of ["online", "offline", "pending"]) expect(statuses).toContain(status);
    firstGatewayIds = gateways.map((gateway) => gateway.id).sort();
    onlineGatewayIds = new Set(gateways.filter((gateway) => gateway.status === "online").map((gateway) => gateway.id));
    expect(new Set(firstGatewayIds).size).toBe(gateways.length);
  });

  test("Modbus devices with templates; registers of all four data types with latest values", async () => {
    const dataTypes = new Set<string>();
    let devicesSeen = 0;
    let templated = 0;
    for (const id of firstGatewayIds) {
      const detail = (await get(`/v1/devices/${id}`)).body.data as {
        id: string;
        modbus_devices: {
          id: string;
          slave_id: number;
          protocol: string;
          template: { id: string; brand: string; model: string } | null;
        }[];
      };
      expect(detail.id).toBe(id);
      if (detail.modbus_devices.length === 0) continue;
      for (const device of detail.modbus_devices) {
        devicesSeen++;
        expect(["rtu", "tcp"]).toContain(device.protocol);
        if (device.template === null) continue;
        templated++;
        expect(device.template.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        expect(device.template.brand.length).toBeGreaterThan(0);
        expect(device.template.model.length).toBeGreaterThan(0);
      }
      const registers = (await get(`/v1/devices/${id}/registers`)).body.data as Register[];
      expect(registers.length).toBeGreaterThan(0);
      for (const register of registers) {
        dataTypes.add(register.data_type);
        // Text registers (a device's model name) have no numeric value to report.
        if (register.data_type === "string") continue;
        expect(register.latest_raw_value).not.toBeNull();
        expect(register.latest_value).not.toBeNull();
        expect(register.latest_ts).not.toBeNull();
        expect(register.latest_value).toBeCloseTo((register.latest_raw_value ?? 0) * (register.scale_factor ?? 1), 6);
      }
      // History is read from an online gateway: its readings reach up to now.
      if (
        historyRegisterId === undefined &&
        onlineGatewayIds.has(id) &&
        registers.some((register) => register.data_type === "int16")
      ) {
        historyRegisterGateway = id;
        historyRegisterId = registers.find((register) => register.data_type === "int16")?.id ?? "";
      }
    }
    expect(historyRegisterId).toBeDefined();
    expect(devicesSeen).toBeGreaterThanOrEqual(4);
    // Devices from the shipped template library, and one with a register map of its own.
    expect(templated).toBeGreaterThanOrEqual(3);
    expect(templated).toBeLessThan(devicesSeen);
    for (const dataType of ["int16", "uint16", "int32", "float32"]) expect(dataTypes).toContain(dataType);
  });

  test("about three days of readings are stored", async () => {
    const now = Date.now();
    const oldest = (
      await get(
        `/v1/devices/${historyRegisterGateway}/readings?order=asc&limit=1&since=${iso(now - 5 * day)}&until=${iso(now + minute)}`,
      )
    ).body;
    expect(oldest.data).toHaveLength(1);
    const first = Date.parse((oldest.data[0] as Reading).ts);
    expect(first).toBeLessThan(now - 2.5 * day);
    // --days 3: no more than three days (plus one backfill step) back.
    expect(first).toBeGreaterThanOrEqual(firstStartedAt - 3 * day - 10 * minute);
    expect(oldest.meta.has_more).toBe(true);

    const newest = (await get(`/v1/devices/${historyRegisterGateway}/readings?limit=1`)).body;
    expect(Date.parse((newest.data[0] as Reading).ts)).toBeGreaterThan(now - 10 * minute);

    // One register's history over most of the window, kept to compare after the restart.
    firstHistory = (
      await get(
        `/v1/devices/${historyRegisterGateway}/readings?register_id=${historyRegisterId}&order=asc&limit=1000&since=${iso(firstStartedAt - 2.9 * day)}&until=${iso(firstStartedAt - 10 * minute)}`,
      )
    ).body.data as Reading[];
    expect(firstHistory.length).toBeGreaterThan(800);
    const timestamps = firstHistory.map((reading) => reading.ts);
    expect(new Set(timestamps).size).toBe(timestamps.length);
  });

  test("alerts in each of the four statuses", async () => {
    const { body } = await get("/v1/alerts");
    firstAlerts = body.data as Alert[];
    expect(body.meta.total).toBe(firstAlerts.length);
    expect(new Set(firstAlerts.map((alert) => alert.status))).toEqual(
      new Set(["active", "returned", "acknowledged", "resolved"]),
    );
  });

  test("SIGTERM stops it with exit code 0", async () => {
    const demo = started[0];
    if (demo === undefined) throw new Error("demo not started");
    expect(await demo.stop()).toBe(0);
  }, 15_000);

  test("started again on the same data: same gateways, no duplicated alerts, history kept", async () => {
    const demo = startDemo(port, dataDir);
    const banner = await waitForBanner(demo, port);
    // Only the gap since the first run is topped up.
    expect(backfilled(banner)).toBeLessThan(firstBackfill / 10);

    const gateways = (await get("/v1/devices")).body.data as Gateway[];
    expect(gateways.map((gateway) => gateway.id).sort()).toEqual(firstGatewayIds);

    const alerts = (await get("/v1/alerts")).body;
    expect(alerts.meta.total).toBe(firstAlerts.length);
    expect((alerts.data as Alert[]).map((alert) => alert.id).sort()).toEqual(
      firstAlerts.map((alert) => alert.id).sort(),
    );
    expect(new Set((alerts.data as Alert[]).map((alert) => alert.status))).toEqual(
      new Set(["active", "returned", "acknowledged", "resolved"]),
    );

    const history = (
      await get(
        `/v1/devices/${historyRegisterGateway}/readings?register_id=${historyRegisterId}&order=asc&limit=1000&since=${iso(firstStartedAt - 2.9 * day)}&until=${iso(firstStartedAt - 10 * minute)}`,
      )
    ).body.data as Reading[];
    expect(history).toEqual(firstHistory);

    const now = Date.now();
    const oldest = (
      await get(
        `/v1/devices/${historyRegisterGateway}/readings?order=asc&limit=1&since=${iso(now - 5 * day)}&until=${iso(now + minute)}`,
      )
    ).body;
    expect(Date.parse((oldest.data[0] as Reading).ts)).toBeLessThan(now - 2.5 * day);
  }, 45_000);

  test("the sandbox key allows 60 requests a minute, then 429 rate_limited with Retry-After", async () => {
    const probe = async () => {
      const response = await fetch(`${baseUrl}/v1/introspect`, {
        headers: { authorization: `Bearer ${demoSandboxKey}` },
      });
      return { status: response.status, headers: response.headers, body: (await response.json()) as { code?: string } };
    };
    let first = await probe();
    // Not at the edge of a minute window, so the count below stays in one window.
    if (Number(first.headers.get("x-ratelimit-reset")) < 10) {
      await Bun.sleep((Number(first.headers.get("x-ratelimit-reset")) + 1) * 1000);
      first = await probe();
    }
    expect(first.status).toBe(200);
    expect(first.headers.get("x-ratelimit-limit")).toBe("60");
    const remaining = Number(first.headers.get("x-ratelimit-remaining"));
    for (let index = 0; index < remaining; index++) expect((await probe()).status).toBe(200);
    const refused = await probe();
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe("rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  }, 30_000);

  test("the restarted demo stops with exit code 0 too", async () => {
    const demo = started[1];
    if (demo === undefined) throw new Error("demo not restarted");
    expect(await demo.stop()).toBe(0);
  }, 15_000);
});
