/**
 * Config problems a person can find (docs/config.md): each has
 * the file's line and column and the path with list items named, next to the
 * `<path>: <message>` form scripts read. In process (checkConfig) and through
 * `fieldhub config check FILE` as a process.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  checkConfig,
  checkConfigFile,
  formatLocatedProblems,
  formatProblems,
  parseConfig,
} from "../../src/config/index.ts";
import { runCli } from "../harness/cli.ts";

// Line numbers below count from the first line of this text.
const badYaml = `organizations:
  - key: acme
    name: Acme
gateways:
  - serial: GW-TCP-1
    name: Boiler house
    organization: acme
    bus: { type: tcp }
    devices:
      - name: boiler
        host: 127.0.0.1
        slave_id: 1
        registers:
          - name: flow_temp
            address: 70000
            data_type: int16
          - { name: return_temp, adress: 3, data_type: int16 }
  - serial: GW-2
    organization: acme
    bus: { type: tcp }
api:
  cors_origins: ["https://dash.example.com/"]
`;

const expected = [
  {
    path: "gateways[0].devices[0].registers[0].address",
    at: {
      line: 15,
      column: 13,
      where: 'gateways[0] "GW-TCP-1" > devices[0] "boiler" > registers[0] "flow_temp" > address',
    },
  },
  {
    // A missing field is placed where its list item starts.
    path: "gateways[0].devices[0].registers[1].address",
    at: {
      line: 17,
      column: 13,
      where: 'gateways[0] "GW-TCP-1" > devices[0] "boiler" > registers[1] "return_temp" > address',
    },
  },
  {
    path: "gateways[0].devices[0].registers[1].adress",
    at: {
      line: 17,
      column: 34,
      where: 'gateways[0] "GW-TCP-1" > devices[0] "boiler" > registers[1] "return_temp" > adress',
    },
  },
  { path: "gateways[1].name", at: { line: 18, column: 5, where: 'gateways[1] "GW-2" > name' } },
  // A list of plain values has no names: the index is the name.
  { path: "api.cors_origins[0]", at: { line: 22, column: 18, where: "api.cors_origins[0]" } },
];

describe("in process", () => {
  test("checkConfig gives each problem its line, column and named path", () => {
    const result = checkConfig(badYaml);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map(({ path, at }) => ({ path, at }))).toEqual(expected);
  });

  test("parseConfig keeps the plain `path: message` problems", () => {
    const located = checkConfig(badYaml);
    const plain = parseConfig(badYaml);
    if (located.ok || plain.ok) throw new Error("expected problems");
    expect(plain.problems).toEqual(located.problems.map(({ path, message }) => ({ path, message })));
    expect(Object.keys(plain.problems[0]!).sort()).toEqual(["message", "path"]);
  });

  test("formatLocatedProblems: the `path: message` line, then an indented line with where it is", () => {
    const result = checkConfig(badYaml);
    if (result.ok) throw new Error("expected problems");
    const lines = formatLocatedProblems(result.problems, "site.yaml").split("\n");
    expect(lines.filter((line) => !line.startsWith(" "))).toEqual(formatProblems(result.problems).split("\n"));
    expect(lines.slice(0, 2)).toEqual([
      "gateways[0].devices[0].registers[0].address: must be between 0 and 65535; got 70000",
      '  site.yaml:15:13  gateways[0] "GW-TCP-1" > devices[0] "boiler" > registers[0] "flow_temp" > address',
    ]);
    expect(formatLocatedProblems(result.problems).split("\n")[1]).toBe(
      '  line 15, column 13  gateways[0] "GW-TCP-1" > devices[0] "boiler" > registers[0] "flow_temp" > address',
    );
  });

  test("organisations are named by key, and a problem about the whole file keeps its message", () => {
    const result = checkConfig("organizations:\n  - key: acme\n    name: Acme\n    colour: red\n");
    if (result.ok) throw new Error("expected problems");
    expect(result.problems[0]?.at).toEqual({ line: 4, column: 5, where: 'organizations[0] "acme" > colour' });
    const syntax = checkConfig("organizations: [\n");
    if (syntax.ok) throw new Error("expected problems");
    expect(syntax.problems[0]?.at).toEqual({ line: 1, column: 16, where: "", text: "organizations: [" });
    expect(formatLocatedProblems(syntax.problems, "site.yaml").split("\n")).toEqual([
      "YAML syntax error at line 1, column 16: the [ here is never closed with ]",
      "  site.yaml:1:16",
      "    organizations: [",
      "                   ^",
    ]);
    const unreadable = checkConfigFile(join(tmpdir(), "fieldhub-no-such-config.yaml"));
    if (unreadable.ok) throw new Error("expected problems");
    expect(unreadable.problems[0]?.at).toBeUndefined();
  });
});

describe("fieldhub config check FILE", () => {
  let workDir: string;
  beforeAll(() => {
    workDir = mkdtempSync(join(tmpdir(), "fieldhub-config-locations-"));
  });
  afterAll(() => {
    rmSync(workDir, { recursive: true, force: true });
  });

  test("prints each problem as `path: message` with its file:line:column and named path under it", async () => {
    const file = join(workDir, "site.yaml");
    writeFileSync(file, badYaml);
    const result = await runCli(["config", "check", file]);
    expect(result.code).toBe(1);
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines[0]).toBe(`fieldhub: ${file}: ${expected.length} problems`);
    const body = lines.slice(1);
    expect(body).toHaveLength(expected.length * 2);
    for (const [i, problem] of expected.entries()) {
      expect(body[2 * i]!.startsWith(`${problem.path}: `)).toBe(true);
      expect(body[2 * i + 1]).toBe(`  ${file}:${problem.at.line}:${problem.at.column}  ${problem.at.where}`);
    }
  });
});
