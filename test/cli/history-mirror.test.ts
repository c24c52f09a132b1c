/**
 * `fieldhub mirror` as a process (docs/history-io.md): the mirror of a running demo
 * equals the demo's own export; a mirror killed with -9 (and a torn last line)
 * resumes without loss or duplicates; Retry-After and X-RateLimit-* are waited out;
 * a register the server no longer lists keeps the value, min, max and mean it sent.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { demoGatewaySerials } from "../../src/demo/demo-config.ts";
import { type RunningCli, startCli } from "../harness/cli.ts";
import { cliOk, createReadKey, startDemo } from "../harness/history.ts";

let dir: string;
let demoData: string;
let demo: RunningCli;
let url: string;
let key: string;
let since: string;
/** Readings before this are committed before any mirror starts (ingest flushes every second). */
let settled: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "fieldhub-mirror-"));
  demoData = join(dir, "demo");
  const started = await startDemo(demoData, 2);
  demo = started.demo;
  url = `${started.url}/v1`;
  key = await createReadKey(demoData);
  since = new Date(Date.now() - 2 * 86_400_000).toISOString();
  settled = Date.now() - 5_000;
}, 90_000);

afterAll(async () => {
  await demo?.stop(10_000);
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** The demo's own export of the settled window, gateway after gateway in serial order as the mirror walks them. */
async function demoExport(): Promise<string> {
  let text = "";
  // The spare gateway has no devices, so no history and nothing to export.
  const withHistory = Object.values(demoGatewaySerials).filter((serial) => serial !== demoGatewaySerials.spare);
  for (const serial of withHistory.sort()) {
    const out = join(dir, `export-${serial}.ndjson`);
    await cliOk([
      "history",
      "export",
      "--data",
      demoData,
      "--gateway",
      serial,
      "--since",
      since,
      "--until",
      new Date(settled).toISOString(),
      "--out",
      out,
      "--quiet",
    ]);
    text += readFileSync(out, "utf8");
  }
  return text;
}

/** The mirror's rows of the settled window, in file order. */
function settledRows(path: string): string {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "" && Date.parse(JSON.parse(line).ts) < settled)
    .map((line) => `${line}\n`)
    .join("");
}

describe("mirror of a running demo", () => {
  test("equals the demo's own export, and a second run adds only newer rows", async () => {
    const out = join(dir, "mirror.ndjson");
    const first = await cliOk(["mirror", "--url", url, "--key", key, "--out", out, "--since", since], 120_000);
    expect(first.stderr).toMatch(/mirrored \d+ new readings of 4 gateways/);
    const expected = await demoExport();
    expect(expected.length).toBeGreaterThan(1000);
    expect(settledRows(out)).toBe(expected);
    const before = readFileSync(out, "utf8");
    await cliOk(["mirror", "--url", url, "--key", key, "--out", out, "--since", since, "--quiet"], 60_000);
    const after = readFileSync(out, "utf8");
    expect(after.startsWith(before)).toBe(true);
    const keys = after
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const row = JSON.parse(line);
        return `${row.register_id} ${row.ts}`;
      });
    expect(new Set(keys).size).toBe(keys.length);
  }, 180_000);

  test("killed with -9 and with a torn last line, it resumes without loss or duplicates", async () => {
    const out = join(dir, "killed.ndjson");
    const running = startCli(["mirror", "--url", url, "--key", key, "--out", out, "--since", since, "--quiet"]);
    while ((!existsSync(out) || statSync(out).size < 200_000) && running.proc.exitCode === null) await Bun.sleep(5);
    running.proc.kill("SIGKILL");
    await running.proc.exited;
    expect(running.proc.signalCode).toBe("SIGKILL");
    appendFileSync(out, '{"register_id":"1bcedbe0-1787-5d66-98');
    await cliOk(["mirror", "--url", url, "--key", key, "--out", out, "--since", since, "--quiet"], 120_000);
    expect(settledRows(out)).toBe(await demoExport());
  }, 180_000);
});

describe("rate limits", () => {
  test("waits out Retry-After on 429 and X-RateLimit-Reset when none remain", async () => {
    const now = Date.now();
    const rows = [now - 3_600_000, now - 3_000_000, now - 2_400_000].map((ts, i) => ({
      register_id: "00000000-0000-4000-8000-000000000001",
      modbus_device_id: "00000000-0000-4000-8000-0000000000d1",
      name: "flow",
      unit: "l/h",
      value: i * 1.5,
      raw_value: i * 15,
      ts: new Date(Math.floor(ts / 1000) * 1000).toISOString(),
    }));
    const seen: string[] = [];
    let readingCalls = 0;
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(request) {
        const path = new URL(request.url).pathname;
        seen.push(path);
        const json = (body: unknown, headers: Record<string, string> = {}) =>
          Response.json(body, {
            headers: {
              "x-ratelimit-limit": "100",
              "x-ratelimit-remaining": "50",
              "x-ratelimit-reset": "30",
              ...headers,
            },
          });
        if (request.headers.get("authorization") !== "Bearer k") return new Response("", { status: 401 });
        if (path === "/v1/devices")
          return json({ data: [{ id: "g1", serial: "OTHER-1" }], meta: { total: 1, limit: 100, offset: 0 } });
        if (path === "/v1/devices/g1")
          return json({ data: { modbus_devices: [{ id: rows[0]?.modbus_device_id, name: "pump" }] } });
        if (path === "/v1/devices/g1/registers")
          return json({ data: [{ id: rows[0]?.register_id, scale_factor: 0.1 }] });
        readingCalls++;
        if (readingCalls === 1) {
          return new Response(JSON.stringify({ code: "rate_limited" }), {
            status: 429,
            headers: { "retry-after": "1" },
          });
        }
        if (readingCalls === 2) {
          return json(
            { data: rows.slice(0, 2), meta: { has_more: true, next_cursor: "c2" } },
            { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "1" },
          );
        }
        return json({ data: rows.slice(2), meta: { has_more: false, next_cursor: null } });
      },
    });
    try {
      const out = join(dir, "other.csv");
      const began = Date.now();
      await cliOk([
        "mirror",
        "--url",
        `http://127.0.0.1:${server.port}/v1/`,
        "--key",
        "k",
        "--out",
        out,
        "--format",
        "csv",
        "--since",
        new Date(now - 86_400_000).toISOString(),
        "--quiet",
      ]);
      expect(Date.now() - began).toBeGreaterThanOrEqual(2_000);
      expect(readingCalls).toBe(3);
      expect(readFileSync(out, "utf8").split("\r\n")).toEqual([
        "register_id,ts,raw_value,gateway,device,register,unit,value,min,max,mean,samples,raw_min,raw_max,raw_mean",
        ...rows.map((row) => `${row.register_id},${row.ts},${row.raw_value},OTHER-1,pump,flow,l/h,${row.value},,,,,,,`),
        "",
      ]);
    } finally {
      server.stop(true);
    }
  }, 30_000);
});

describe("a retired register", () => {
  test("keeps the value, min, max and mean its server sent, in engineering units like a listed one's", async () => {
    const ts = new Date(Math.floor((Date.now() - 3_600_000) / 1000) * 1000).toISOString();
    const aggregate = { raw_min: 400, raw_max: 600, raw_mean: 500, samples: 12 };
    const listed = { register_id: "00000000-0000-4000-8000-000000000001", name: "flow", unit: "l/h" };
    // Retired: the server serves its history (scale factor 0.1) but lists it no more.
    const retired = { register_id: "00000000-0000-4000-8000-000000000002", name: "old_flow", unit: "l/h" };
    const rows = [listed, retired].map((register) => ({
      ...register,
      modbus_device_id: "00000000-0000-4000-8000-0000000000d1",
      value: 45.2,
      raw_value: 452,
      min: 40,
      max: 60,
      mean: 50,
      ...aggregate,
      ts,
    }));
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(request) {
        const path = new URL(request.url).pathname;
        if (path === "/v1/devices")
          return Response.json({ data: [{ id: "g1", serial: "RETIRED-1" }], meta: { total: 1 } });
        if (path === "/v1/devices/g1")
          return Response.json({ data: { modbus_devices: [{ id: rows[0]?.modbus_device_id, name: "pump" }] } });
        if (path === "/v1/devices/g1/registers")
          return Response.json({ data: [{ id: listed.register_id, scale_factor: 0.1 }] });
        return Response.json({ data: rows, meta: { has_more: false, next_cursor: null } });
      },
    });
    try {
      const out = join(dir, "retired.ndjson");
      await cliOk([
        "mirror",
        "--url",
        `http://127.0.0.1:${server.port}/v1`,
        "--key",
        "k",
        "--out",
        out,
        "--since",
        new Date(Date.now() - 86_400_000).toISOString(),
        "--quiet",
      ]);
      const written = readFileSync(out, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      const units = (row: Record<string, unknown>) => [
        row.register,
        row.value,
        row.min,
        row.max,
        row.mean,
        row.raw_min,
      ];
      expect(written.map(units)).toEqual([
        ["flow", 45.2, 40, 60, 50, 400],
        ["old_flow", 45.2, 40, 60, 50, 400],
      ]);
    } finally {
      server.stop(true);
    }
  }, 30_000);
});
