/**
 * `fieldhub history export|import` as processes (docs/history-io.md): every format
 * survives export -> import into a fresh store -> export byte for byte; importing
 * twice stores nothing new; the storage density rule holds; bad rows are named by
 * line with --on-error stop|skip; an import killed with -9 resumes without loss;
 * an import beside a running `serve` is served at once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../src/store/index.ts";
import { runCli, servedUrl, startCli } from "../harness/cli.ts";
import { cliOk, startDemo, writeDemoConfig } from "../harness/history.ts";

let dir: string;
let demoData: string;
let config: string;
/** A fixed end, so exports of different stores cover the same window. */
let until: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "fieldhub-history-"));
  demoData = join(dir, "demo");
  config = writeDemoConfig(dir);
  const { demo } = await startDemo(demoData, 3);
  await demo.stop(10_000);
  until = new Date().toISOString();
}, 90_000);

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const formats = ["ndjson", "csv", "line-protocol"] as const;

async function exportTo(data: string, format: string, out: string, extra: string[] = []) {
  await cliOk([
    "history",
    "export",
    "--data",
    data,
    "--format",
    format,
    "--until",
    until,
    "--out",
    out,
    "--quiet",
    ...extra,
  ]);
  return readFileSync(out, "utf8");
}

function importSummary(stderr: string) {
  const match = /imported (\d+) rows: (\d+) stored, (\d+) skipped/.exec(stderr);
  if (match === null) throw new Error(`no import summary in:\n${stderr}`);
  return { read: Number(match[1]), stored: Number(match[2]), skipped: Number(match[3]) };
}

describe("round trip", () => {
  for (const format of formats) {
    test(`${format}: export -> import into a fresh store -> export gives the same bytes, aggregates included; a second import stores nothing`, async () => {
      const first = await exportTo(demoData, format, join(dir, `first.${format}`));
      const rows = first.split("\n").filter((line) => line !== "").length - (format === "csv" ? 1 : 0);
      expect(rows).toBeGreaterThan(10_000);
      // The demo's backfill gives each reading its period's aggregate (six polls): they travel too.
      const aggregated = first.split("\n").filter((line) => /samples"?[=:,]"?6|,6,/.test(line)).length;
      expect(aggregated).toBeGreaterThan(rows / 2);
      const fresh = join(dir, `fresh-${format}`);
      const imported = await cliOk([
        "history",
        "import",
        "--data",
        fresh,
        "--config",
        config,
        "--format",
        format,
        join(dir, `first.${format}`),
      ]);
      expect(importSummary(imported.stderr)).toEqual({ read: rows, stored: rows, skipped: 0 });
      const second = await exportTo(fresh, format, join(dir, `second.${format}`));
      expect(second).toBe(first);
      const again = await cliOk([
        "history",
        "import",
        "--data",
        fresh,
        "--format",
        format,
        join(dir, `first.${format}`),
      ]);
      expect(importSummary(again.stderr)).toEqual({ read: rows, stored: 0, skipped: rows });
    }, 60_000);
  }

  test("export writes the csv header and RFC 4180 rows, line protocol with integer fields, aggregate fields and seconds", async () => {
    const csv = await exportTo(demoData, "csv", join(dir, "look.csv"), ["--gateway", "FH-DEMO-001"]);
    expect(csv.split("\r\n")[0]).toBe(
      "register_id,ts,raw_value,gateway,device,register,unit,value,min,max,mean,samples,raw_min,raw_max,raw_mean",
    );
    const lp = await exportTo(demoData, "line-protocol", join(dir, "look.lp"), ["--gateway", "FH-DEMO-001"]);
    expect(lp.split("\n")[0]).toMatch(
      /^reading,gateway=FH-DEMO-001,device=Climate\\ computer,register=\S+ raw=-?\d+i,raw_min=-?\d+i,raw_max=-?\d+i,raw_mean=-?[\d.]+i?,samples=6i \d{10}$/,
    );
  }, 30_000);
});

const airTemperature = { gateway: "FH-DEMO-001", device: "Climate computer", register: "air_temperature" };
const row = (ts: string, raw: unknown, names: object = airTemperature) =>
  JSON.stringify({ ...names, ts, raw_value: raw });

describe("import rules", () => {
  test("at most one reading per register per storage period (60 s here): the rest are counted as skipped", async () => {
    const data = join(dir, "density");
    const file = join(dir, "density.ndjson");
    writeFileSync(
      file,
      [
        row("2025-01-01T00:00:00Z", 1),
        row("2025-01-01T00:00:30Z", 2),
        row("2025-01-01T00:01:00Z", 3),
        row("2025-01-01T00:01:59Z", 4),
      ].join("\n"),
    );
    const result = await cliOk(["history", "import", "--data", data, "--config", config, "--format", "ndjson", file]);
    expect(importSummary(result.stderr)).toEqual({ read: 4, stored: 2, skipped: 2 });
    const out = await exportTo(data, "ndjson", join(dir, "density-out.ndjson"));
    expect(
      out
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line).raw_value),
    ).toEqual([1, 3]);
  }, 30_000);

  test("--on-error stop names the line, keeps only committed batches and says how many rows were stored", async () => {
    const data = join(dir, "stop");
    const file = join(dir, "stop.ndjson");
    writeFileSync(
      file,
      [row("2025-01-01T00:00:00Z", 1), row("not a time", 2), row("2025-01-01T00:02:00Z", 3)].join("\n"),
    );
    const result = await runCli(
      ["history", "import", "--data", data, "--config", config, "--format", "ndjson", file],
      30_000,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("line 2: time is not an ISO 8601 date-time");
    expect(result.stderr).toContain("0 readings stored");
    const out = await exportTo(data, "ndjson", join(dir, "stop-out.ndjson"));
    expect(out).toBe("");
  }, 30_000);

  test("--on-error skip counts and summarises bad rows: unknown register, bad time, value that does not fit", async () => {
    const data = join(dir, "skip");
    const file = join(dir, "skip.csv");
    writeFileSync(
      file,
      [
        "gateway,device,register,ts,raw_value",
        "FH-DEMO-001,Climate computer,air_temperature,2025-01-01T00:00:00Z,215",
        "FH-DEMO-001,Climate computer,no_such_register,2025-01-01T00:00:00Z,1",
        "FH-DEMO-001,Climate computer,air_temperature,2025-13-01T00:00:00Z,1",
        "FH-DEMO-001,Climate computer,air_temperature,2025-01-01T00:05:00Z,1e999",
        'FH-DEMO-001,"Climate computer",air_temperature,2025-01-01T00:10:00Z,',
      ].join("\r\n"),
    );
    const result = await cliOk([
      "history",
      "import",
      "--data",
      data,
      "--config",
      config,
      "--format",
      "csv",
      "--on-error",
      "skip",
      file,
    ]);
    expect(result.stderr).toContain("line 3: unknown register");
    expect(result.stderr).toContain("line 4: time is not");
    expect(result.stderr).toContain("line 5: raw_value is not a finite number");
    expect(importSummary(result.stderr)).toEqual({ read: 2, stored: 2, skipped: 0 });
    expect(result.stderr).toContain("3 rows with errors skipped (first: line 3");
  }, 30_000);

  test("a usage mistake changes nothing and says what is wrong", async () => {
    const result = await runCli(["history", "import", "--data", join(dir, "usage"), "--format", "xml", "x"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--format: one of ndjson, csv, line-protocol");
  });
});

describe("interrupted and concurrent imports", () => {
  test("an import killed with -9 resumes when run again: nothing lost, nothing twice", async () => {
    // Several import batches' worth: two registers, a reading a minute for 139 days.
    const source = join(dir, "kill.ndjson");
    const lines: string[] = [];
    const first = Date.UTC(2024, 0, 1);
    for (let minute = 0; minute < 200_000; minute++) {
      const ts = new Date(first + minute * 60_000).toISOString();
      lines.push(row(ts, minute % 500), row(ts, minute % 700, { ...airTemperature, register: "relative_humidity" }));
    }
    writeFileSync(source, `${lines.join("\n")}\n`);
    const empty = join(dir, "empty.ndjson");
    writeFileSync(empty, "");
    const reference = join(dir, "reference");
    await cliOk(["history", "import", "--data", reference, "--config", config, "--format", "ndjson", source]);
    const expected = await exportTo(reference, "ndjson", join(dir, "reference.ndjson"));
    const data = join(dir, "killed");
    await cliOk(["history", "import", "--data", data, "--config", config, "--format", "ndjson", empty]);
    const running = startCli(["history", "import", "--data", data, "--format", "ndjson", source]);
    // Kill it once its first batch is committed, through the store's own interface.
    const store = openStore(data);
    try {
      while ((await store.readings.newestTimes()).size === 0 && running.proc.exitCode === null) await Bun.sleep(5);
    } finally {
      await store.close();
    }
    running.proc.kill("SIGKILL");
    await running.proc.exited;
    expect(running.proc.signalCode).toBe("SIGKILL");
    const resumed = await cliOk(["history", "import", "--data", data, "--format", "ndjson", source]);
    const summary = importSummary(resumed.stderr);
    // Part was stored before the kill, the rest now.
    expect(summary.skipped).toBeGreaterThan(0);
    expect(summary.stored).toBeGreaterThan(0);
    expect(summary.stored + summary.skipped).toBe(summary.read);
    expect(await exportTo(data, "ndjson", join(dir, "killed-out.ndjson"))).toBe(expected);
  }, 60_000);

  test("import beside a running serve: the server serves the imported history at once", async () => {
    const data = join(dir, "served");
    const serve = startCli(["serve", "--config", config, "--data", data, "--port", "0"]);
    try {
      const url = await serve.waitFor(servedUrl, 30_000);
      const key = (
        await cliOk([
          "keys",
          "create",
          "--data",
          data,
          "--org",
          "demo",
          "--name",
          "r",
          "--scopes",
          "devices:read,registers:read",
        ])
      ).stdout.trim();
      const file = join(dir, "served.ndjson");
      writeFileSync(file, [row("2025-03-01T00:00:00Z", 201), row("2025-03-01T00:05:00Z", 202)].join("\n"));
      await cliOk(["history", "import", "--data", data, "--format", "ndjson", file]);
      const headers = { authorization: `Bearer ${key}` };
      const gateways = (await (await fetch(`${url}/v1/devices`, { headers })).json()) as {
        data: { id: string; serial: string }[];
      };
      const gateway = gateways.data.find((g) => g.serial === "FH-DEMO-001");
      const readings = (await (
        await fetch(
          `${url}/v1/devices/${gateway?.id}/readings?since=2025-02-28T00:00:00Z&until=2025-03-02T00:00:00Z&order=asc`,
          { headers },
        )
      ).json()) as { data: { raw_value: number; ts: string }[] };
      expect(readings.data.map((r) => [r.ts, r.raw_value])).toEqual([
        ["2025-03-01T00:00:00.000Z", 201],
        ["2025-03-01T00:05:00.000Z", 202],
      ]);
    } finally {
      await serve.stop(10_000);
    }
  }, 60_000);
});
