/**
 * `fieldhub templates list [--json]` and `fieldhub templates show BRAND MODEL`, run as
 * processes: the library with each template's source document, one template's every
 * register, and a brand or model that is off answered as a config's template lookup
 * answers it (exit 1, the closest names).
 */
import { describe, expect, test } from "bun:test";
import { deviceTemplates, findTemplate } from "../../src/config/index.ts";
import { runCli } from "../harness/cli.ts";

type ListedTemplate = {
  brand: string;
  model: string;
  kind: string;
  registers: number;
  source: { title: string; version: string; url?: string };
};

describe("templates list", () => {
  test("--json lists every template with its kind, register count and source document", async () => {
    const result = await runCli(["templates", "list", "--json"]);
    expect(result.code).toBe(0);
    const listed = JSON.parse(result.stdout) as ListedTemplate[];
    expect(listed.length).toBeGreaterThanOrEqual(30);
    expect(listed.map((t) => `${t.brand}/${t.model}`)).toEqual(deviceTemplates().map((t) => `${t.brand}/${t.model}`));
    for (const entry of listed) {
      const template = findTemplate(entry.brand, entry.model);
      expect(entry).toEqual({
        brand: template?.brand ?? "",
        model: template?.model ?? "",
        kind: template?.kind ?? "",
        registers: template?.registers.length ?? -1,
        source: template?.source ?? { title: "", version: "" },
      });
      expect(entry.source.title.length).toBeGreaterThan(0);
      expect(entry.source.version.length).toBeGreaterThan(0);
    }
  });

  test("as text: one line per template with brand, model, kind, registers and source title and version", async () => {
    const result = await runCli(["templates", "list"]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^BRAND\s+MODEL\s+KIND\s+REGISTERS\s+SOURCE$/);
    expect(lines.length).toBe(deviceTemplates().length + 2);
    const huawei = lines.find((line) => line.startsWith("Huawei "));
    expect(huawei).toMatch(
      /^Huawei\s+SUN2000\s+hybrid inverter\s+15\s+Solar Inverter Modbus Interface Definitions, Issue 04, 2022-03-29$/,
    );
    expect(lines.at(-1)).toBe(
      `${deviceTemplates().length} templates; \`fieldhub templates show BRAND MODEL\` prints one.`,
    );
  });
});

describe("templates show", () => {
  test("prints the source and every register with address, function code, type, byte order, unit, scale and description", async () => {
    const result = await runCli(["templates", "show", "Carlo Gavazzi", "EM24"]);
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toBe("Carlo Gavazzi EM24 (energy meter)");
    expect(lines[1]).toStartWith("Source: EM24-DIN PFA, PFB & X models - Communication Protocol");
    expect(lines.find((line) => line.startsWith("Checked against: "))).toContain("2.3-1");
    const em24 = findTemplate("Carlo Gavazzi", "EM24");
    for (const register of em24?.registers ?? []) {
      expect(lines.some((line) => line.startsWith(`${register.name} `))).toBe(true);
    }
    expect(lines.find((line) => line.startsWith("voltage_l1 "))).toMatch(
      /^voltage_l1\s+0 \(0x0000\)\s+3\s+int32\s+CDAB\s+V\s+0\.1\s+V L1-N$/,
    );
    expect(lines.find((line) => line.startsWith("reactive_power "))).toMatch(
      /^reactive_power\s+44 \(0x002c\)\s+3\s+int32\s+CDAB\s+var\s+0\.1\s+VAR system$/,
    );
  });

  test("names the examples that are the document's own readings, with where the document gives them", async () => {
    const result = await runCli(["templates", "show", "Saia Burgess Controls", "ALE3"]);
    expect(result.code).toBe(0);
    const line = result.stdout.split("\n").find((text) => text.startsWith("Examples from the document: "));
    expect(line).toContain("energy_tariff1 (");
    expect(line).toContain("voltage_l1 (");
    expect(line).not.toContain("energy_tariff2");
  });

  test("--json gives each register's fields and its example", async () => {
    const result = await runCli(["templates", "show", "Victron Energy", "GX system", "--json"]);
    expect(result.code).toBe(0);
    const shown = JSON.parse(result.stdout) as {
      source: { title: string; version: string };
      registers: Record<string, unknown>[];
    };
    expect(shown.source.version).toBe("3.00");
    expect(shown.registers.find((r) => r.name === "battery_soc")).toEqual({
      name: "battery_soc",
      address: 843,
      function_code: 3,
      data_type: "uint16",
      byte_order: "ABCD",
      unit: "%",
      scale_factor: null,
      writable: false,
      description: "Battery state of charge (system)",
      example: { words: [0x004e], value: 78 },
    });
  });

  test("a template that says how its devices name themselves shows it (fieldhub discover matches it)", async () => {
    const result = await runCli(["templates", "show", "Schneider Electric", "iEM3255"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Identifies as: vendor Schneider Electric, product A9MEM3255 (fieldhub discover)");
  });

  test("a brand spelt off is answered with the closest brand, exit 1; nothing on stdout", async () => {
    const result = await runCli(["templates", "show", "eastron", "SDM630"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toStartWith('fieldhub: no template for brand "eastron" (did you mean "Eastron"?)');
  });

  test("an unknown model lists the brand's models with the closest", async () => {
    const result = await runCli(["templates", "show", "Eastron", "SDM360"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toStartWith(
      'fieldhub: brand "Eastron" has no template "SDM360" (did you mean "SDM630"?); its models: SDM630, SDM120',
    );
  });

  test("without a model it is a usage error", async () => {
    const result = await runCli(["templates", "show", "Eastron"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("templates show takes a brand and a model");
    expect(result.stderr).toContain("Usage: fieldhub templates show BRAND MODEL [--json]");
  });
});
