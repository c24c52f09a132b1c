/**
 * History written by InfluxDB 1.x itself (Debian's `influxdb` package) imports into
 * fieldhub: points are loaded into a private influxd (own port and data directory,
 * never the system service), read back with `influx -execute ... -format csv` and
 * with `influx_inspect export`, and each file is imported into a fresh store.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../harness/cli.ts";
import { cliOk, writeDemoConfig } from "../harness/history.ts";

const influxd = Bun.which("influxd");
const influx = Bun.which("influx");
const influxInspect = Bun.which("influx_inspect");
// Debian's influxdb 1.6 package (and influxdb-client, for `influx`) ships no
// influx_inspect: that test runs only where one is installed.
const missing = influxd === null || influx === null;

let dir: string;
let config: string;
let httpPort: number;
let server: ReturnType<typeof Bun.spawn> | undefined;
let lines: string[];

const day = Date.UTC(2026, 0, 15);

beforeAll(async () => {
  if (missing) return;
  dir = mkdtempSync(join(tmpdir(), "fieldhub-influx-"));
  config = writeDemoConfig(dir);
  httpPort = freePort();
  const influxConfig = join(dir, "influxdb.conf");
  writeFileSync(
    influxConfig,
    [
      "reporting-disabled = true",
      `bind-address = "127.0.0.1:${freePort()}"`,
      "[meta]",
      `  dir = "${join(dir, "meta")}"`,
      "[data]",
      `  dir = "${join(dir, "data")}"`,
      `  wal-dir = "${join(dir, "wal")}"`,
      "  query-log-enabled = false",
      "[http]",
      `  bind-address = "127.0.0.1:${httpPort}"`,
      "  log-enabled = false",
      "[monitor]",
      "  store-enabled = false",
      "",
    ].join("\n"),
  );
  server = Bun.spawn([influxd as string, "-config", influxConfig], { stdout: "ignore", stderr: "ignore" });
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ping = await fetch(`http://127.0.0.1:${httpPort}/ping`).catch(() => null);
    if (ping?.status === 204) break;
    if (Date.now() > deadline) throw new Error("influxd did not answer /ping");
    await Bun.sleep(100);
  }
  await fetch(`http://127.0.0.1:${httpPort}/query`, {
    method: "POST",
    body: new URLSearchParams({ q: "CREATE DATABASE fh" }),
  });
  // A day of two demo registers, one value a minute, as fieldhub's export writes them.
  lines = [];
  for (let minute = 0; minute < 1440; minute++) {
    const seconds = (day + minute * 60_000) / 1000;
    lines.push(
      `reading,gateway=FH-DEMO-001,device=Climate\\ computer,register=air_temperature raw=${200 + (minute % 50)}i ${seconds}`,
    );
    lines.push(
      `reading,gateway=FH-DEMO-001,device=Climate\\ computer,register=relative_humidity raw=${600 - (minute % 70)}i ${seconds}`,
    );
  }
  const write = await fetch(`http://127.0.0.1:${httpPort}/write?db=fh&precision=s`, {
    method: "POST",
    body: lines.join("\n"),
  });
  if (write.status !== 204) throw new Error(`influx write: ${write.status} ${await write.text()}`);
}, 60_000);

afterAll(async () => {
  server?.kill("SIGTERM");
  await server?.exited;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** Imports a file into a fresh store and exports it back as line protocol, lines sorted. */
async function importAndExport(name: string, file: string, format: string, precision: string): Promise<string[]> {
  const data = join(dir, name);
  const imported = await cliOk([
    "history",
    "import",
    "--data",
    data,
    "--config",
    config,
    "--format",
    format,
    "--precision",
    precision,
    file,
  ]);
  expect(imported.stderr).toContain(`imported ${lines.length} rows: ${lines.length} stored`);
  const out = join(dir, `${name}.lp`);
  await cliOk(["history", "export", "--data", data, "--format", "line-protocol", "--out", out, "--quiet"]);
  return readFileSync(out, "utf8").split("\n").filter(Boolean).sort();
}

describe.skipIf(missing)("InfluxDB's own files (needs Debian's influxdb and influxdb-client: influxd, influx)", () => {
  test("influx -execute ... -format csv imports as csv", async () => {
    const query =
      await Bun.$`${influx} -host 127.0.0.1 -port ${httpPort} -database fh -format csv -precision rfc3339 -execute ${"SELECT raw, gateway, device, register FROM reading"}`.quiet();
    const file = join(dir, "influx.csv");
    writeFileSync(file, query.stdout);
    expect(query.stdout.toString().split("\n")[0]).toBe("name,time,raw,gateway,device,register");
    expect(await importAndExport("from-csv", file, "csv", "s")).toEqual([...lines].sort());
  }, 60_000);

  test.skipIf(influxInspect === null)(
    "influx_inspect export (nanosecond line protocol with its header) imports as line-protocol (skipped where no influx_inspect is installed: Debian's package has none)",
    async () => {
      const file = join(dir, "inspect.lp");
      await Bun.$`${influxInspect} export -datadir ${join(dir, "data")} -waldir ${join(dir, "wal")} -database fh -out ${file}`.quiet();
      const text = readFileSync(file, "utf8");
      expect(text).toContain("# DML");
      expect(text).toMatch(/raw=\d+i \d{19}\n/);
      expect(await importAndExport("from-inspect", file, "line-protocol", "ns")).toEqual([...lines].sort());
    },
    60_000,
  );
});

describe("influx_inspect export's layout", () => {
  test("its header (comments, CREATE DATABASE) is skipped and nanosecond times are read with --precision ns", async () => {
    const fixture = mkdtempSync(join(tmpdir(), "fieldhub-inspect-"));
    try {
      const file = join(fixture, "inspect.lp");
      // The layout influx_inspect 1.x export writes (a hand-made file, for hosts without the tool).
      writeFileSync(
        file,
        [
          "# INFLUXDB EXPORT: 1677-09-21T00:12:43Z - 2262-04-11T23:47:16Z",
          "# DDL",
          "CREATE DATABASE fh WITH NAME autogen",
          "# DML",
          "# CONTEXT-DATABASE:fh",
          "# CONTEXT-RETENTION-POLICY:autogen",
          "# writing tsm data",
          "reading,device=Climate\\ computer,gateway=FH-DEMO-001,register=air_temperature raw=215i 1768435200000000000",
          "reading,device=Climate\\ computer,gateway=FH-DEMO-001,register=air_temperature raw=21.75 1768435260000000000",
          "# writing wal data",
          "",
        ].join("\n"),
      );
      const data = join(fixture, "store");
      const imported = await cliOk([
        "history",
        "import",
        "--data",
        data,
        "--config",
        writeDemoConfig(fixture),
        "--format",
        "line-protocol",
        "--precision",
        "ns",
        file,
      ]);
      expect(imported.stderr).toContain("imported 2 rows: 2 stored");
      const out = join(fixture, "out.ndjson");
      await cliOk(["history", "export", "--data", data, "--out", out, "--quiet"]);
      const rows = readFileSync(out, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line));
      expect(rows.map((row) => [row.ts, row.raw_value])).toEqual([
        ["2026-01-15T00:00:00.000Z", 215],
        ["2026-01-15T00:01:00.000Z", 21.75],
      ]);
    } finally {
      rmSync(fixture, { recursive: true, force: true });
    }
  }, 30_000);
});
