import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { exampleConfigYaml, parseConfig } from "../../src/config/index.ts";

test("the example config is valid and has what it promises", () => {
  const result = parseConfig(exampleConfigYaml);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  const [organization] = result.config.inventory.organizations;
  expect(result.config.inventory.organizations.length).toBe(1);
  expect(organization?.customers.length).toBe(1);
  expect(organization?.gateways.map((g) => g.modbusDevices.length)).toEqual([2, 1]);
  expect([...result.config.buses.values()].map((bus) => bus.type)).toEqual(["tcp", "rtu"]);
});

test("docs/config.md shows the example verbatim", () => {
  const docs = readFileSync(join(import.meta.dir, "../../docs/config.md"), "utf8");
  expect(docs).toContain(`\`\`\`yaml\n${exampleConfigYaml}\`\`\``);
});
