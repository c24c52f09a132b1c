import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { deviceTemplates, exampleConfigYaml, parseConfig } from "../../src/config/index.ts";
import { stableUuid } from "../../src/lib/ids.ts";

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

  const climate = organization?.gateways[0]?.modbusDevices[0];
  expect(result.config.rules).toEqual([
    {
      id: stableUuid("rule", "Greenhouse too hot"),
      name: "Greenhouse too hot",
      enabled: true,
      registerId: climate?.registers.find((r) => r.name === "air_temperature")?.id as string,
      gatewayId: organization?.gateways[0]?.id as string,
      modbusDeviceId: climate?.id as string,
      condition: "gt",
      threshold: 30,
      severity: "warning",
      message: "air_temperature above {threshold} {unit}: {value} {unit}",
      hysteresis: 1,
      forMs: 300_000,
    },
  ]);
  expect(result.config.offlineDetector).toEqual({
    id: stableUuid("rule", "offline-detector"),
    name: "Gateway offline",
    enabled: true,
    severity: "critical",
    devices: false,
  });
  expect(result.config.automations).toEqual([
    {
      id: stableUuid("automation", "Notify when too hot"),
      name: "Notify when too hot",
      enabled: true,
      orgKey: "acme",
      trigger: { kind: "rule", ruleId: stableUuid("rule", "Greenhouse too hot") },
      actions: [{ type: "webhook" }],
    },
  ]);
});

test("docs/config.md shows the example verbatim", () => {
  const docs = readFileSync(join(import.meta.dir, "../../docs/config.md"), "utf8");
  expect(docs).toContain(`\`\`\`yaml\n${exampleConfigYaml}\`\`\``);
});

test("docs/config.md lists every template of the library with its register count", () => {
  const docs = readFileSync(join(import.meta.dir, "../../docs/config.md"), "utf8");
  for (const template of deviceTemplates()) {
    const row = docs.split("\n").find((line) => line.startsWith(`| ${template.brand} | ${template.model} |`));
    expect(row).toBeDefined();
    expect(row).toContain(`| ${template.registers.length} `);
    expect(row).toContain(`\`${template.byteOrder}\``);
  }
});
