/**
 * `fieldhub discover` as a process against Debian's pymodbus (test/fixtures/pymodbus_server.py):
 * on Modbus TCP among silent unit ids and gateway units (exception 0x0B), a device named
 * by its 43/14 identification after a shipped template; over a socat pty RTU line two
 * units at their ids; through a serial device server (pymodbus serving RTU frames on
 * TCP) the same, with an `rtu_over_tcp` bus written; a device silent for an address it
 * lacks missed by the default probe and found with `--probe`; the written config passes
 * `config check` (and `serve` polls a SunSpec device from it, its MPPT modules as many
 * as the device has); bad flags exit 2.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { repoRoot, runCli, serveArgs, servedUrl, startCli } from "../harness/cli.ts";
import { type PymodbusPeer, startPymodbusPeer } from "../harness/pymodbus.ts";
import { createReadKey, eventually, getData } from "../harness/served-api.ts";
import {
  expectedTexts,
  expectedValues,
  sunSpecBase,
  sunSpecUnitSpec,
  sunSpecWords,
} from "../harness/sunspec-device.ts";
import { missingPeers, Peers } from "../modbus/serial/peers.ts";

const missing = missingPeers();
const peers = new Peers();
const started: PymodbusPeer[] = [];
let workDir: string;

beforeAll(() => {
  if (missing !== undefined) throw new Error(`discover tests need real peers: ${missing}`);
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-discover-"));
});
afterAll(async () => {
  for (const peer of started) peer.proc.kill();
  await peers.stopAll();
  if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
});

async function peer(spec: unknown): Promise<PymodbusPeer> {
  const running = await startPymodbusPeer(spec);
  started.push(running);
  return running;
}

/** `fieldhub discover` on `link` with a 200 ms timeout and `extra`. */
const discover = (link: string[], ...extra: string[]) =>
  runCli(["discover", ...link, "--timeout-ms", "200", ...extra], 30_000);
/** Units 1-10 on `link` as JSON, the config written to `configOut`. */
const discoverTenInto = (link: string[], configOut: string) =>
  discover(link, "--units", "1-10", "--json", "--config-out", configOut);
const tcp = (running: PymodbusPeer) => ["--host", "127.0.0.1", "--port", String(running.port)];

type ServedRegister = { name: string; latest_value: number | null; latest_text: string | null };

interface Found {
  unit_id: number;
  sunspec: {
    base: number;
    models: { id: number; name: string | null; address: number; length: number }[];
    common: { manufacturer: string | null; model: string | null; version: string | null; serial: string | null } | null;
  } | null;
  probe: { holding_register_0?: number; exception?: number; name?: string | null; request?: string; value?: number };
  identification: { vendor: string | null; product: string | null; revision: string | null } | null;
  template: { brand: string; model: string } | null;
  device: Record<string, unknown>;
}

/**
 * Meters that name themselves as the library's Eastron SDM630 (pymodbus gives every unit
 * of a server its one identity): at unit 3, and at unit 7 without a register 0.
 */
const meterSpec = {
  tcp_port: 0,
  identity: { vendor: "Eastron", product: "SDM630-Modbus V2", revision: "1.3" },
  gateway_units: [5, 6],
  units: {
    "3": { hr: [{ address: 0, type: "uint16", value: 630 }] },
    "7": { hr: [{ address: 1, type: "uint16", value: 1 }] },
  },
};

/**
 * `serve` with a config discover wrote, as written, serves the SunSpec test device's
 * values (raw x 10^sf, the unimplemented point null) and texts, and an inventory of its
 * two MPPT modules and no third.
 */
async function expectServedAsWritten(configOut: string): Promise<void> {
  const dataDir = mkdtempSync(join(workDir, "serve-"));
  const serve = startCli(serveArgs(configOut, dataDir));
  try {
    const baseUrl = await serve.waitFor(servedUrl);
    const key = await createReadKey(dataDir, "site");
    const [gateway] = await getData<{ id: string }[]>(baseUrl, key, "/v1/devices");
    const wanted = { ...expectedValues, ...expectedTexts };
    const servedOf = (registers: ServedRegister[]) => {
      const byName = new Map(registers.map((register) => [register.name, register]));
      return Object.fromEntries(
        Object.keys(wanted).map((name) => {
          const register = byName.get(name);
          return [name, name.startsWith("1.") ? register?.latest_text : register?.latest_value];
        }),
      );
    };
    const registers = await eventually(
      () => getData<ServedRegister[]>(baseUrl, key, `/v1/devices/${gateway!.id}/registers`),
      (list) => Bun.deepEquals(servedOf(list), wanted),
      30_000,
    );
    expect(servedOf(registers)).toEqual(wanted);
    const modules = new Set(registers.flatMap((register) => /^160\.module\.(\d+)\./u.exec(register.name)?.[1] ?? []));
    expect({ registers: registers.length, modules: [...modules] }).toEqual({ registers: 76, modules: ["1", "2"] });
  } finally {
    await serve.stop();
  }
}

describe("on Modbus TCP", () => {
  test("finds exactly the units that answer, a Modbus exception counting; names the template by 43/14; the config passes config check", async () => {
    const meter = await peer(meterSpec);
    const configOut = join(workDir, "tcp.yaml");
    const result = await discoverTenInto(tcp(meter), configOut);
    expect(result.code).toBe(0);
    // Said up front, on stderr: the worst case of a silent bus.
    expect(result.stderr).toContain("at most 10 x 200 ms = 2.0 s");
    const report = JSON.parse(result.stdout) as {
      found: Found[];
      units_tried: number;
      worst_case_ms: number;
      config_out: string;
    };
    expect(report.units_tried).toBe(10);
    expect(report.worst_case_ms).toBe(2000);
    // Units 5 and 6 answer exception 0x0B (no device behind the gateway): absent, like the silent ones.
    expect(report.found.map((unit) => unit.unit_id)).toEqual([3, 7]);
    const [three, seven] = report.found as [Found, Found];
    expect(three.probe).toEqual({ holding_register_0: 630 });
    expect(seven.probe).toEqual({ exception: 2, name: "illegal data address" } as Found["probe"]);
    expect(three.identification).toEqual({ vendor: "Eastron", product: "SDM630-Modbus V2", revision: "1.3" });
    expect(three.template).toEqual({ brand: "Eastron", model: "SDM630" });
    expect(three.device).toEqual({
      name: "Eastron SDM630 (unit 3)",
      host: "127.0.0.1",
      port: meter.port,
      slave_id: 3,
      template: { brand: "Eastron", model: "SDM630" },
    });
    expect(report.config_out).toBe(configOut);
    const config = parseYaml(readFileSync(configOut, "utf8")) as { gateways: { bus: unknown; devices: unknown[] }[] };
    expect(config.gateways[0]!.bus).toEqual({ type: "tcp" });
    expect(config.gateways[0]!.devices).toEqual([three.device, seven.device]);
    const check = await runCli(["config", "check", configOut]);
    expect({ code: check.code, stderr: check.stderr }).toEqual({ code: 0, stderr: "" });
    expect(seven.template).toEqual({ brand: "Eastron", model: "SDM630" });
    // The SDM630 template's 38 registers, twice.
    expect(check.stdout).toContain("1 gateways, 76 registers");
    // Never a write: the peer counted none.
    expect(JSON.parse((await meter.ask("STATS")).slice(6)).writes).toBe(0);
  }, 60_000);

  test("text on stdout names each unit and prints its devices: entry; an existing --config-out is refused before the scan", async () => {
    const meter = await peer(meterSpec);
    const text = await discover(tcp(meter), "--units", "2-3");
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("unit 3: answers (holding register 0 = 630)");
    expect(text.stdout).toContain("identification (43/14): vendor Eastron, product SDM630-Modbus V2, revision 1.3");
    expect(text.stdout).toContain("template: Eastron SDM630");
    expect(text.stdout).toContain("1 unit answered of 2 tried");
    expect(parseYaml(text.stdout.slice(text.stdout.indexOf("devices:")))).toEqual({
      devices: [
        {
          name: "Eastron SDM630 (unit 3)",
          host: "127.0.0.1",
          port: meter.port,
          slave_id: 3,
          template: { brand: "Eastron", model: "SDM630" },
        },
      ],
    });
    const existing = join(workDir, "existing.yaml");
    writeFileSync(existing, "# mine\n");
    const before = JSON.parse((await meter.ask("STATS")).slice(6)).requests;
    const refused = await discover(tcp(meter), "--config-out", existing);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`--config-out ${existing}: the file exists`);
    expect(readFileSync(existing, "utf8")).toBe("# mine\n");
    expect(JSON.parse((await meter.ask("STATS")).slice(6)).requests).toBe(before);
  }, 60_000);

  test("a SunSpec device among silent units: its models named, the common model read; serve polls the config discover wrote", async () => {
    const inverter = await peer({ tcp_port: 0, units: { "6": sunSpecUnitSpec() } });
    const configOut = join(workDir, "sunspec.yaml");
    const result = await discoverTenInto(tcp(inverter), configOut);
    expect({ code: result.code, stderr: result.stderr.split("\n").slice(1).join("\n") }).toEqual({
      code: 0,
      stderr: "",
    });
    const report = JSON.parse(result.stdout) as { found: Found[] };
    expect(report.found.map((unit) => unit.unit_id)).toEqual([6]);
    const [six] = report.found as [Found];
    // No register at address 0: exception 2, an answer.
    expect(six.probe).toEqual({ exception: 2, name: "illegal data address" } as Found["probe"]);
    expect(six.sunspec?.base).toBe(sunSpecBase);
    expect(six.sunspec?.models).toEqual([
      { id: 1, name: "Common", address: 40002, length: 66 },
      { id: 103, name: "Inverter (Three Phase)", address: 40070, length: 50 },
      { id: 160, name: "Multiple MPPT Inverter Extension Model", address: 40122, length: 48 },
    ]);
    expect(six.sunspec?.common).toEqual({
      manufacturer: expectedTexts["1.Mn"],
      model: expectedTexts["1.Md"],
      version: expectedTexts["1.Vr"],
      serial: expectedTexts["1.SN"],
    });
    expect(six.template).toBeNull();
    // The models found, and the two MPPT modules 160's length holds rather than the default four.
    expect(six.device).toEqual({
      name: "fieldhub test SunSpec 103 sim (unit 6)",
      host: "127.0.0.1",
      port: inverter.port,
      slave_id: 6,
      sunspec: { models: [1, 103, 160], repeats: 2 },
    });
    const check = await runCli(["config", "check", configOut]);
    expect({ code: check.code, stderr: check.stderr }).toEqual({ code: 0, stderr: "" });
    // 76 registers for the three models with two modules, where `sunspec: true` gives every known model's 1,121.
    expect(check.stdout).toContain("1 gateways, 76 registers");
    const everyModel = join(workDir, "sunspec-true.yaml");
    writeFileSync(
      everyModel,
      readFileSync(configOut, "utf8").replace(/sunspec:\n(\s+)models:[\s\S]*?repeats: 2\n/u, "sunspec: true\n"),
    );
    expect((await runCli(["config", "check", everyModel])).stdout).toContain("1 gateways, 1121 registers");

    await expectServedAsWritten(configOut);
  }, 90_000);

  test("a device whose SunSpec common model names a shipped template gets that template", async () => {
    // The test device with Mn "Fronius" and Md "Symo 10.0-3-M" (the common model's Mn at 40004, Md at 40020, 16 registers each).
    const words = sunSpecWords();
    const text = (value: string) =>
      Array.from({ length: 16 }, (_, i) => Buffer.from(value.padEnd(32, "\0"), "latin1").readUInt16BE(2 * i));
    words.splice(40004 - sunSpecBase, 16, ...text("Fronius"));
    words.splice(40020 - sunSpecBase, 16, ...text("Symo 10.0-3-M"));
    const inverter = await peer({
      tcp_port: 0,
      units: { "1": { hr: [{ address: sunSpecBase, type: "raw", value: words }] } },
    });
    const result = await discover(tcp(inverter), "--units", "1", "--json");
    expect(result.code).toBe(0);
    const [one] = (JSON.parse(result.stdout) as { found: Found[] }).found as [Found];
    expect(one.template).toEqual({ brand: "Fronius", model: "Symo" });
    expect(one.device.template).toEqual({ brand: "Fronius", model: "Symo" });
    expect(one.device.sunspec).toBeUndefined();
  }, 60_000);

  test("on a terminal, stderr shows the units tried and found as the scan goes", async () => {
    const meter = await peer(meterSpec);
    // script(1) (util-linux, in every Debian) gives the CLI a pty: stdout and stderr both land in its output.
    const command = [
      process.execPath,
      "src/main.ts",
      "discover",
      ...tcp(meter),
      "--units",
      "1-4",
      "--timeout-ms",
      "200",
    ];
    const proc = Bun.spawn(["script", "-qec", command.map((word) => `'${word}'`).join(" "), "/dev/null"], {
      cwd: repoRoot,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [output, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(0);
    for (const line of ["1/4 units tried, 0 found", "3/4 units tried, 1 found", "4/4 units tried, 1 found"]) {
      expect(output).toContain(`\r${line}`);
    }
  }, 60_000);

  test("nothing listening: exit 1 with the reason", async () => {
    const result = await runCli(["discover", "--host", "127.0.0.1", "--port", "1", "--units", "1"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("cannot connect to tcp://127.0.0.1:1");
  });
});

describe("on an RTU line", () => {
  test("finds two units at their ids over a socat pty", async () => {
    const { a, b } = await peers.ptyPair("discover");
    // A pty keeps 8N1 whatever is asked (docs/serial.md): the peer and the scan run 8N1.
    await peer({
      serial: { port: a, baudrate: 9600, parity: "N", stopbits: 1, bytesize: 8 },
      units: {
        "4": { hr: [{ address: 0, type: "uint16", value: 44 }] },
        "9": { hr: [{ address: 0, type: "uint16", value: 99 }] },
      },
    });
    const configOut = join(workDir, "rtu.yaml");
    const result = await discoverTenInto(["--serial", b, "--baud", "9600"], configOut);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { found: Found[] };
    expect(report.found.map((unit) => [unit.unit_id, unit.probe])).toEqual([
      [4, { holding_register_0: 44 }],
      [9, { holding_register_0: 99 }],
    ]);
    const config = parseYaml(readFileSync(configOut, "utf8")) as { gateways: { bus: unknown; devices: unknown[] }[] };
    expect(config.gateways[0]!.bus).toEqual({ type: "rtu", path: b, baud: 9600, parity: "none", stop_bits: 1 });
    expect(config.gateways[0]!.devices).toEqual([
      { name: "unit 4", slave_id: 4 },
      { name: "unit 9", slave_id: 9 },
    ]);
    expect((await runCli(["config", "check", configOut])).code).toBe(0);
  }, 60_000);

  test("a serial device that is not there: exit 1 naming it", async () => {
    const result = await runCli(["discover", "--serial", join(workDir, "no-such-tty"), "--units", "1"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("no-such-tty");
  });
});

describe("through a serial device server (--rtu-over-tcp)", () => {
  test("RTU frames over TCP: two units at their ids and a SunSpec device; the config written has an rtu_over_tcp bus, passes config check and serve polls it", async () => {
    // pymodbus's RTU framer on a TCP port: what a serial-to-Ethernet converter in transparent mode passes on.
    const server = await peer({
      tcp_port: 0,
      tcp_framing: "rtu",
      units: {
        "4": { hr: [{ address: 0, type: "uint16", value: 44 }] },
        "6": sunSpecUnitSpec(),
        "9": { hr: [{ address: 0, type: "uint16", value: 99 }] },
      },
    });
    const configOut = join(workDir, "rtu-over-tcp.yaml");
    const result = await discoverTenInto([...tcp(server), "--rtu-over-tcp"], configOut);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`on rtu-over-tcp://127.0.0.1:${server.port}: at most 10 x 200 ms = 2.0 s`);
    const report = JSON.parse(result.stdout) as { target: unknown; found: Found[] };
    expect(report.target).toEqual({ kind: "rtu_over_tcp", host: "127.0.0.1", port: server.port });
    expect(report.found.map((unit) => [unit.unit_id, unit.probe])).toEqual([
      [4, { holding_register_0: 44 }],
      [6, { exception: 2, name: "illegal data address" }],
      [9, { holding_register_0: 99 }],
    ]);
    expect(report.found[1]!.sunspec?.models.map((model) => [model.id, model.address, model.length])).toEqual([
      [1, 40002, 66],
      [103, 40070, 50],
      [160, 40122, 48],
    ]);
    expect(report.found[1]!.sunspec?.common?.serial).toBe(expectedTexts["1.SN"]);
    const config = parseYaml(readFileSync(configOut, "utf8")) as {
      gateways: { serial: string; bus: unknown; devices: unknown[] }[];
    };
    expect(config.gateways[0]!.bus).toEqual({ type: "rtu_over_tcp", host: "127.0.0.1", port: server.port });
    expect(config.gateways[0]!.serial).toBe(`rtu-over-tcp-127.0.0.1-${server.port}`);
    // Devices on a serial line have no address of their own: the bus has it.
    expect(config.gateways[0]!.devices).toEqual([
      { name: "unit 4", slave_id: 4 },
      {
        name: "fieldhub test SunSpec 103 sim (unit 6)",
        slave_id: 6,
        sunspec: { models: [1, 103, 160], repeats: 2 },
      },
      { name: "unit 9", slave_id: 9 },
    ]);
    const check = await runCli(["config", "check", configOut]);
    expect({ code: check.code, stderr: check.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse((await server.ask("STATS")).slice(6)).writes).toBe(0);
    // serve polls the device through the server with the config as written.
    await expectServedAsWritten(configOut);
  }, 90_000);

  test("nothing listening: exit 1 with the reason", async () => {
    const result = await runCli(["discover", "--host", "127.0.0.1", "--port", "1", "--rtu-over-tcp", "--units", "1"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("cannot connect to rtu-over-tcp://127.0.0.1:1");
  });
});

describe("a device silent for an address it lacks (--probe)", () => {
  test("missed by the default probe of holding register 0; found by a second probe at 40000 (asked only of units silent to the first: test/modbus/discover/scan.test.ts)", async () => {
    // The SunSpec device keeps quiet where it would answer exception 2 (holding register 0 among them).
    const inverter = await peer({ tcp_port: 0, units: { "6": { ...sunSpecUnitSpec(), silent_exceptions: [2] } } });
    const missed = await discover(tcp(inverter), "--units", "5-6", "--json");
    expect(missed.code).toBe(0);
    expect((JSON.parse(missed.stdout) as { found: Found[] }).found).toEqual([]);

    const result = await discover(tcp(inverter), "--units", "5-6", "--probe", "hr:0,hr:40000", "--json");
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("at most 2 x 2 probes (hr:0, hr:40000) x 200 ms = 0.8 s");
    const report = JSON.parse(result.stdout) as { probes: string[]; worst_case_ms: number; found: Found[] };
    expect({ probes: report.probes, worst_case_ms: report.worst_case_ms }).toEqual({
      probes: ["hr:0", "hr:40000"],
      worst_case_ms: 800,
    });
    expect(report.found.map((unit) => [unit.unit_id, unit.probe])).toEqual([
      [6, { request: "hr:40000", value: 0x5375 }],
    ]);
    expect(report.found[0]!.sunspec?.models.map((model) => model.id)).toEqual([1, 103, 160]);
    expect(report.found[0]!.device.sunspec).toEqual({ models: [1, 103, 160], repeats: 2 });
    const text = await discover(tcp(inverter), "--units", "6", "--probe", "hr:0,hr:40000");
    expect(text.stdout).toContain("unit 6: answers (holding register 40000 = 21365)");
  }, 60_000);
});

describe("usage errors: one line saying what is wrong, exit 2", () => {
  const cases: [string[], string][] = [
    [["discover"], "give either --host H (Modbus TCP) or --serial DEVICE (Modbus RTU), not both"],
    [["discover", "--host", "h", "--serial", "/dev/ttyUSB0"], "not both"],
    [["discover", "--host", "h", "--units", "0-300"], "--units: unit ids from 0 to 255"],
    [["discover", "--serial", "/dev/x", "--units", "0-5"], "--units: unit ids from 1 to 247"],
    [["discover", "--host", "h", "--units", "9-3"], "--units:"],
    [["discover", "--host", "h", "--timeout-ms", "5"], "--timeout-ms: a whole number of milliseconds from 10 to 60000"],
    [["discover", "--serial", "/dev/x", "--parity", "mark"], "--parity: even, odd or none; got mark"],
    [["discover", "--serial", "/dev/x", "--stop-bits", "3"], "--stop-bits: 1 or 2; got 3"],
    [["discover", "--serial", "/dev/x", "--baud", "1000"], "--baud: one of 1200,"],
    [["discover", "--host", "h", "--baud", "9600"], "--baud is for a serial line (--serial), not --host"],
    [["discover", "--serial", "/dev/x", "--port", "502"], "--port is for Modbus TCP (--host), not --serial"],
    [["discover", "--host", "h", "--port", "70000"], "--port: not a port number: 70000"],
    [["discover", "--host", "h", "--frobnicate"], "Unknown option '--frobnicate'"],
    [
      ["discover", "--serial", "/dev/x", "--rtu-over-tcp"],
      "--rtu-over-tcp is for a serial device server at --host H, not --serial",
    ],
    [["discover", "--rtu-over-tcp"], "--rtu-over-tcp needs --host H"],
    [
      ["discover", "--host", "h", "--rtu-over-tcp", "--parity", "even"],
      "--parity is for a serial line (--serial), not --rtu-over-tcp",
    ],
    [["discover", "--host", "h", "--rtu-over-tcp", "--units", "0-5"], "--units: unit ids from 1 to 247"],
    [["discover", "--host", "h", "--rtu-over-tcp=yes"], "Option '--rtu-over-tcp' does not take an argument"],
    [["discover", "--host", "h", "--probe", "hr:70000"], "--probe: hr:ADDRESS, ir:ADDRESS (0 to 65535) or id"],
    [["discover", "--host", "h", "--probe", "hr:0,coil:1"], "--probe:"],
  ];
  test("each bad flag", async () => {
    for (const [argv, message] of cases) {
      const result = await runCli(argv);
      expect({ argv, code: result.code, first: result.stderr.split("\n")[0] }).toEqual({
        argv,
        code: 2,
        first: expect.stringContaining(message) as unknown as string,
      });
      expect(existsSync(join(workDir, "x"))).toBe(false);
    }
  }, 60_000);
});
