/**
 * `fieldhub config check FILE`, `serve` with a bad config, `version` and the usage
 * errors, run as separate processes the way a user runs them (product: "A bad
 * config is refused with every problem listed with its path, and nothing starts").
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { exampleConfigYaml, parseConfig } from "../../src/config/index.ts";
import { freePort, repoRoot, runCli } from "../harness/cli.ts";

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

let workDir: string;
beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-config-cli-"));
});
afterAll(() => {
  if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
});

function writeTemp(name: string, text: string): string {
  const path = join(workDir, name);
  writeFileSync(path, text);
  return path;
}

const validYaml = `
server:
  port: 8099
organizations:
  - key: acme
    name: Acme Greenhouses
    customers:
      - { key: north, name: North site, city: Venlo }
gateways:
  - serial: CFG-1
    name: Greenhouse 1
    customer: north
    bus: { type: tcp }
    devices:
      - name: Climate computer
        slave_id: 1
        host: 10.0.0.5
        registers:
          - { name: air_temperature, address: 0, function_code: 4, data_type: int16, unit: "°C", scale_factor: 0.1 }
          - { name: humidity, address: 1, function_code: 4, data_type: uint16 }
  - serial: CFG-2
    name: Boiler room
    bus: { type: rtu, path: /dev/ttyUSB0, baud: 19200, parity: even }
    devices:
      - slave_id: 3
        registers:
          - { name: flow_temperature, address: 1, data_type: int16 }
`;

/** Seven problems at seven paths, one per line in `docs/config.md`'s format, in file order. */
const badYaml = `server:
  port: 70000
organizations:
  - key: acme
    name: Acme
gateways:
  - serial: GW-1
    name: One
    customer: south
    bus: { type: tcp }
    devices:
      - name: Meter
        slave_id: 1
        host: 10.0.0.5
        registers:
          - { name: a, address: 0, data_type: int17 }
          - { name: b, adress: 1, data_type: int16 }
  - serial: GW-1
    name: Two
    bus: { type: rtu, path: /dev/ttyS0, baud: 1234 }
`;

const badProblems = [
  "server.port: must be between 1 and 65535; got 70000",
  'gateways[0].customer: names customer "south", which organisation "acme" does not have',
  'gateways[0].devices[0].registers[0].data_type: must be one of int16, uint16, int32, uint32, float32, int64, uint64, float64, bool, string; got "int17"',
  "gateways[0].devices[0].registers[1].address: is required",
  'gateways[0].devices[0].registers[1].adress: unknown field "adress" (did you mean "address"?)',
  'gateways[1].serial: duplicate serial "GW-1" (also at gateways[0].serial)',
  "gateways[1].bus.baud: must be one of 1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200; got 1234",
];

/** Problems whose place in the file is a line of their own, in the order of those lines. */
const badProblemsInFileOrder = [
  "server.port:",
  "gateways[0].customer:",
  "gateways[0].devices[0].registers[0].data_type:",
  "gateways[0].devices[0].registers[1].adress:",
  "gateways[1].serial:",
  "gateways[1].bus.baud:",
];

function expectAllProblemsListed(stderr: string): void {
  const lines = stderr.split("\n");
  for (const problem of badProblems) expect(lines).toContain(problem);
  const positions = badProblemsInFileOrder.map((prefix) => lines.findIndex((line) => line.startsWith(prefix)));
  expect(positions.every((position) => position >= 0)).toBe(true);
  expect([...positions].sort((a, b) => a - b)).toEqual(positions);
}

describe("config check", () => {
  test("a valid file: exit 0, ok with what it holds, nothing on stderr", async () => {
    const file = writeTemp("valid.yaml", validYaml);
    const result = await runCli(["config", "check", file]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${file}: ok (1 organisation, 2 gateways, 3 registers)\n`);
  });

  test("the example the config module exports passes", async () => {
    const file = writeTemp("example.yaml", exampleConfigYaml);
    // Organisations and gateways counted from the plain YAML; registers from the loaded
    // config, since template devices bring the registers of their template.
    const plain = parseYaml(exampleConfigYaml) as { organizations: unknown[]; gateways: unknown[] };
    const loaded = parseConfig(exampleConfigYaml);
    if (!loaded.ok) throw new Error("example config does not load");
    const registers = loaded.config.inventory.organizations
      .flatMap((organization) => organization.gateways)
      .flatMap((gateway) => gateway.modbusDevices)
      .reduce((sum, device) => sum + device.registers.length, 0);
    expect(registers).toBeGreaterThan(20);
    const result = await runCli(["config", "check", file]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const organisations = plain.organizations.length;
    expect(result.stdout).toBe(
      `${file}: ok (${organisations} organisation${organisations === 1 ? "" : "s"}, ${plain.gateways.length} gateways, ${registers} registers)\n`,
    );
  });

  test("a file with several problems: exit 1 and every problem with its path on stderr", async () => {
    const file = writeTemp("bad.yaml", badYaml);
    const result = await runCli(["config", "check", file]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(file);
    expect(result.stderr).toContain(`${badProblems.length} problems`);
    expectAllProblemsListed(result.stderr);
  });

  test("a YAML syntax error names its line and column", async () => {
    const file = writeTemp("syntax.yaml", "organizations:\n  - key: acme\n    name: [unclosed\n");
    const result = await runCli(["config", "check", file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/YAML syntax error at line \d+, column \d+/);
  });

  describe("a YAML syntax mistake is reported once, at FILE:LINE:COL, with the line and a caret under the column", () => {
    const gateway = [
      "organizations:",
      "  - key: acme",
      "    name: Acme",
      "gateways:",
      "  - serial: GW-1",
      "    organization: acme",
      "    bus:",
      "      type: tcp",
      "      host: 10.0.0.5",
      "    devices: []",
    ];
    const edit = (lines: readonly string[], line: number, text: string) =>
      `${lines.map((old, i) => (i === line - 1 ? text : old)).join("\n")}\n`;
    const mistakes = [
      // The parser reports these at the value of the line above (5:13), twice.
      {
        name: "a key indented one column too deep",
        yaml: edit(gateway, 6, "     organization: acme"),
        line: 6,
        column: 6,
      },
      {
        name: "a key indented too deep under a nested mapping",
        yaml: edit(gateway, 9, "        host: 10.0.0.5"),
        line: 9,
        column: 9,
      },
      // The parser reports these at column 1, not at the key.
      { name: "a dedented key in a mapping", yaml: edit(gateway, 9, "     host: 10.0.0.5"), line: 9, column: 6 },
      { name: "a dedented key in a list item", yaml: edit(gateway, 6, "   organization: acme"), line: 6, column: 4 },
      { name: "tab indentation", yaml: edit(gateway, 8, "\t  type: tcp"), line: 8, column: 1 },
      // The parser reports these where it gives up: the end of the file or the next section.
      { name: "an unclosed quote", yaml: edit(gateway, 3, "    name: 'Acme"), line: 3, column: 11 },
      { name: "an unclosed flow list", yaml: edit(gateway, 10, "    devices: [a, b"), line: 10, column: 14 },
      {
        name: "an unclosed flow map",
        yaml: edit(gateway, 7, "    bus: { type: tcp, host: 10.0.0.5"),
        line: 7,
        column: 10,
      },
      { name: "a duplicate key", yaml: edit(gateway, 10, "    bus: {}"), line: 10, column: 5 },
      { name: "a key without its colon", yaml: edit(gateway, 6, "    organization acme"), line: 6, column: 5 },
    ];
    for (const [n, mistake] of mistakes.entries()) {
      test(mistake.name, async () => {
        const file = writeTemp(`mistake-${n}.yaml`, mistake.yaml);
        const result = await runCli(["config", "check", file]);
        expect(result.code).toBe(1);
        const lines = result.stderr.trimEnd().split("\n");
        const text = mistake.yaml.split("\n")[mistake.line - 1]!;
        const caret = `    ${text.slice(0, mistake.column - 1).replace(/[^\t]/g, " ")}^`;
        expect(lines).toEqual([
          `fieldhub: ${file}: 1 problem`,
          expect.stringMatching(new RegExp(`^YAML syntax error at line ${mistake.line}, column ${mistake.column}: `)),
          `  ${file}:${mistake.line}:${mistake.column}`,
          `    ${text}`,
          caret,
        ]);
      });
    }

    test("mistakes in two top-level sections: one report each", async () => {
      const yaml = edit(edit(gateway, 3, "     name: Acme").trimEnd().split("\n"), 9, "     host: 10.0.0.5");
      const file = writeTemp("two-mistakes.yaml", yaml);
      const result = await runCli(["config", "check", file]);
      expect(result.stderr).toContain(`${file}: 2 problems`);
      const located = result.stderr.split("\n").filter((line) => line.startsWith(`  ${file}:`));
      expect(located).toEqual([`  ${file}:3:6`, `  ${file}:9:6`]);
    });
  });

  test("a missing file is a problem, not a crash", async () => {
    const file = join(workDir, "does-not-exist.yaml");
    const result = await runCli(["config", "check", file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(file);
    expect(result.stderr).not.toContain("    at ");
  });

  test("config without a file is a usage error (exit 2)", async () => {
    const result = await runCli(["config", "check"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Usage:");
  });
});

describe("serve with a bad config", () => {
  test("exits non-zero, lists every problem, and starts nothing", async () => {
    const file = writeTemp("bad-serve.yaml", badYaml);
    const dataDir = join(workDir, "serve-data");
    const port = freePort();
    const result = await runCli([
      "serve",
      "--config",
      file,
      "--data",
      dataDir,
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
    ]);
    expect(result.code).not.toBe(0);
    expectAllProblemsListed(result.stderr);
    // Nothing started: no serving log line, no store created, the port still free.
    expect(result.stdout).not.toContain("serving");
    expect(existsSync(dataDir)).toBe(false);
    expect(await isListening(port)).toBe(false);
    const listener = Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } });
    expect(listener.port).toBe(port);
    listener.stop(true);
  });
});

describe("serve on a port that is taken", () => {
  test("fails with the port named instead of sharing it", async () => {
    const file = writeTemp("valid-taken.yaml", validYaml);
    const dataDir = join(workDir, "taken-data");
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen({ host: "127.0.0.1", port: 0 }, resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const result = await runCli(
        ["serve", "--config", file, "--data", dataDir, "--host", "127.0.0.1", "--port", String(port)],
        10_000,
      );
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(String(port));
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });
});

describe("version and usage", () => {
  test("version prints the package.json version", async () => {
    const packageVersion = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string })
      .version;
    const result = await runCli(["version"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(new RegExp(`^fieldhub ${packageVersion.replaceAll(".", "\\.")}( |\\n)`));
    expect(result.stdout.split("\n").filter((line) => line.length > 0)).toHaveLength(1);
  });

  test("an unknown command exits 2 and prints the usage", async () => {
    const result = await runCli(["frobnicate"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain('unknown command "frobnicate"');
    expect(result.stderr).toContain("Usage:");
    for (const command of [
      "fieldhub serve",
      "fieldhub demo",
      "fieldhub keys create",
      "fieldhub keys list",
      "fieldhub keys revoke",
      "fieldhub config check",
      "fieldhub version",
    ]) {
      expect(result.stderr).toContain(command);
    }
  });

  test("no command at all exits 2 with the usage", async () => {
    const result = await runCli([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Usage:");
  });
});

describe("config check: addresses written as Modicon references (docs/config.md)", () => {
  const device = (registers: string, extra = "") => `
organizations:
  - key: acme
    name: Acme
gateways:
  - serial: MOD-1
    name: Boiler room
    bus: { type: tcp }
    devices:
      - name: boiler
        slave_id: 1
        host: 10.0.0.5${extra}
        registers:
${registers}
`;

  test("a holding register at 40002 is warned about with its path, line and the protocol address; exit 0", async () => {
    const file = writeTemp(
      "modicon-holding.yaml",
      device(
        [
          "          - { name: flow_temp, address: 40002, data_type: int16 }",
          "          - { name: supply, address: 30010, function_code: 4, data_type: int16 }",
          "          - { name: alarm, address: 10001, function_code: 2, data_type: bool }",
        ].join("\n"),
      ),
    );
    const result = await runCli(["config", "check", file]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`${file}: ok`);
    expect(result.stderr).toContain(`${file}: 3 warnings`);
    expect(result.stderr).toContain(
      "gateways[0].devices[0].registers[0].address: 40002 looks like a 1-based Modicon reference (holding register 2); with function_code 3 the protocol address would be 1.",
    );
    expect(result.stderr).toContain(`${file}:14:`);
    expect(result.stderr).toContain(
      "gateways[0].devices[0].registers[1].address: 30010 looks like a 1-based Modicon reference (input register 10); with function_code 4 the protocol address would be 9.",
    );
    expect(result.stderr).toContain(`${file}:15:`);
    expect(result.stderr).toContain(
      "gateways[0].devices[0].registers[2].address: 10001 looks like a 1-based Modicon reference (discrete input 1); with function_code 2 the protocol address would be 0.",
    );
  });

  test("protocol addresses outside the ranges, coils, and a device saying addresses: protocol get no warning", async () => {
    const plain = writeTemp(
      "modicon-none.yaml",
      device(
        [
          "          - { name: base, address: 40000, data_type: uint16 }",
          "          - { name: input_as_holding, address: 30002, data_type: uint16 }",
          "          - { name: coil, address: 40002, function_code: 1, data_type: bool }",
          "          - { name: high, address: 50001, data_type: uint16 }",
        ].join("\n"),
      ),
    );
    const clean = await runCli(["config", "check", plain]);
    expect(clean.code).toBe(0);
    expect(clean.stderr).toBe("");

    const declared = writeTemp(
      "modicon-declared.yaml",
      device(
        "          - { name: sma_power, address: 30775, function_code: 4, data_type: int32 }",
        "\n        addresses: protocol",
      ),
    );
    const quiet = await runCli(["config", "check", declared]);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe("");
  });

  test("a value other than protocol for addresses is a problem with its path", async () => {
    const file = writeTemp(
      "modicon-bad.yaml",
      device("          - { name: flow_temp, address: 1, data_type: int16 }", "\n        addresses: modicon"),
    );
    const result = await runCli(["config", "check", file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("gateways[0].devices[0].addresses");
  });
});
