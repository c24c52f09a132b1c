import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { deviceTemplates, exampleConfigYaml, parseConfig } from "../../src/config/index.ts";

test("the example config is valid and has what it promises", () => {
  const result = parseConfig(exampleConfigYaml);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  const [organization] = result.config.inventory.organizations;
  expect(result.config.inventory.organizations.length).toBe(1);
  expect(organization?.customers.length).toBe(1);
  expect(organization?.gateways.map((g) => g.modbusDevices.length)).toEqual([2, 2, 1]);
  expect([...result.config.buses.values()].map((bus) => bus.type)).toEqual(["tcp", "rtu", "rtu_over_tcp"]);
  expect(result.config.polling.map((g) => g.devices.map((d) => d.name))).toEqual([
    ["Climate computer", "Solar inverter"],
    ["Energy meter", "Heat pump"],
    ["Meeting room thermostat"],
  ]);
});

test("docs/config.md shows the example verbatim", () => {
  const docs = readFileSync(join(import.meta.dir, "../../docs/config.md"), "utf8");
  expect(docs).toContain(`\`\`\`yaml\n${exampleConfigYaml}\`\`\``);
});

test("docs/config.md lists every template of the library with its register count", () => {
  const docs = readFileSync(join(import.meta.dir, "../../docs/config.md"), "utf8");
  for (const template of deviceTemplates) {
    const row = docs.split("\n").find((line) => line.startsWith(`| ${template.brand} | ${template.model} |`));
    expect(row).toBeDefined();
    expect(row).toContain(`| ${template.registers.length} `);
    expect(row).toContain(`\`${template.byteOrder}\``);
  }
});
