/** Builders for config tests: files are written as plain objects and turned into YAML. */
import { expect } from "bun:test";
import { stringify } from "yaml";
import { type ConfigProblem, type FieldhubConfig, parseConfig } from "../../src/config/index.ts";

export type Yamlish = Record<string, unknown>;

/** The smallest valid file: one organisation, one TCP gateway with one device. */
export function minimalFile(): Yamlish {
  return {
    organizations: [{ key: "acme", name: "Acme" }],
    gateways: [
      {
        serial: "FH-1",
        name: "Greenhouse 1",
        bus: { type: "tcp" },
        devices: [
          {
            host: "10.0.0.5",
            slave_id: 1,
            registers: [{ name: "t", address: 0, data_type: "int16" }],
          },
        ],
      },
    ],
  };
}

export function toYaml(file: Yamlish): string {
  return stringify(file);
}

export function configOf(file: Yamlish | string): FieldhubConfig {
  const result = parseConfig(typeof file === "string" ? file : toYaml(file));
  if (!result.ok) throw new Error(`expected a valid config, got:\n${JSON.stringify(result.problems, null, 2)}`);
  return result.config;
}

export function problemsOf(file: Yamlish | string): ConfigProblem[] {
  const result = parseConfig(typeof file === "string" ? file : toYaml(file));
  if (result.ok) throw new Error("expected the config to be refused");
  return result.problems;
}

/** The file is refused with exactly this one problem. */
export function expectOnlyProblem(file: Yamlish | string, path: string, message: string | RegExp): void {
  const problems = problemsOf(file);
  expect(problems.map((p) => p.path)).toEqual([path]);
  if (typeof message === "string") expect(problems[0]?.message).toBe(message);
  else expect(problems[0]?.message).toMatch(message);
}

/** Deep access for tweaking a built file: `at(file, "gateways", 0, "devices", 0)`. */
export function at(file: Yamlish, ...path: (string | number)[]): Yamlish {
  let node: unknown = file;
  for (const segment of path) node = (node as Record<string | number, unknown>)[segment];
  return node as Yamlish;
}
