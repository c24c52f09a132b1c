import { describe, expect, test } from "bun:test";
import type { AutomationConfig, OfflineDetectorConfig, RuleConfig } from "../../src/config/index.ts";
import { stableUuid } from "../../src/lib/ids.ts";
import { at, configOf, expectOnlyProblem, problemsOf, type Yamlish } from "./helpers.ts";

const explicitId = "0b7e6a8c-3f1d-4f2a-9c55-2d1e8b7a6c40";
const otherId = "6f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e";

/**
 * One organisation, one TCP gateway with a named climate computer (co2 in ppm, a
 * unit-less count and a text register), an unnamed device with a template (one
 * register excluded) and a second unnamed device, and one rule.
 */
function fileWithRule(): Yamlish {
  return {
    organizations: [{ key: "acme", name: "Acme" }],
    gateways: [
      {
        serial: "FH-DEMO-001",
        name: "Greenhouse 1",
        bus: { type: "tcp" },
        devices: [
          {
            name: "Climate computer",
            host: "10.0.0.5",
            slave_id: 1,
            registers: [
              { name: "co2", address: 0, data_type: "uint16", unit: "ppm" },
              { name: "starts", address: 1, data_type: "uint16" },
              { name: "program", address: 10, data_type: "string", length: 4 },
              { name: "door_open", address: 20, function_code: 1, data_type: "bool" },
            ],
          },
          {
            host: "10.0.0.7",
            slave_id: 4,
            template: { brand: "Fronius", model: "Symo" },
            exclude: ["model"],
          },
          { host: "10.0.0.8", slave_id: 3, registers: [{ name: "flow", address: 1, data_type: "int16" }] },
        ],
      },
    ],
    rules: [
      {
        name: "CO2 high",
        gateway: "FH-DEMO-001",
        device: "Climate computer",
        register: "co2",
        condition: "gt",
        threshold: 900,
      },
    ],
  };
}

const rule = (file: Yamlish, i = 0) => at(file, "rules", i);
const rulesOf = (file: Yamlish) => file.rules as Yamlish[];
const webhook = [{ type: "webhook" }];

const gatewayId = stableUuid("gateway", "FH-DEMO-001");
const climateId = stableUuid("modbus-device", "FH-DEMO-001", "Climate computer");
const co2Id = stableUuid("register", "FH-DEMO-001", "Climate computer", "co2");
const detectorId = stableUuid("rule", "offline-detector");

describe("rules: output", () => {
  test("a rule with only the required fields gets every default", () => {
    const config = configOf(fileWithRule());
    expect(config.rules).toEqual([
      {
        id: stableUuid("rule", "CO2 high"),
        name: "CO2 high",
        enabled: true,
        registerId: co2Id,
        gatewayId,
        modbusDeviceId: climateId,
        condition: "gt",
        threshold: 900,
        severity: "warning",
        message: "co2 above {threshold} {unit}: {value} {unit}",
        hysteresis: 0,
        forMs: 0,
      } satisfies RuleConfig,
    ]);
  });

  test("the ids are the inventory's", () => {
    const config = configOf(fileWithRule());
    const gateway = config.inventory.organizations[0]?.gateways[0];
    const device = gateway?.modbusDevices[0];
    expect(config.rules[0]?.gatewayId).toBe(gateway?.id as string);
    expect(config.rules[0]?.modbusDeviceId).toBe(device?.id as string);
    expect(config.rules[0]?.registerId).toBe(device?.registers.find((r) => r.name === "co2")?.id as string);
  });

  test("every field written", () => {
    const file = fileWithRule();
    Object.assign(rule(file), {
      id: explicitId.toUpperCase(),
      severity: "critical",
      message: "CO2 above {threshold} {unit}: {value} {unit} in {device} of {gateway} ({register})",
      hysteresis: 50,
      for_s: 60,
      enabled: false,
    });
    expect(configOf(file).rules[0]).toEqual({
      id: explicitId,
      name: "CO2 high",
      enabled: false,
      registerId: co2Id,
      gatewayId,
      modbusDeviceId: climateId,
      condition: "gt",
      threshold: 900,
      severity: "critical",
      message: "CO2 above {threshold} {unit}: {value} {unit} in {device} of {gateway} ({register})",
      hysteresis: 50,
      forMs: 60_000,
    });
  });

  test("the default message reads the condition in words", () => {
    const file = fileWithRule();
    for (const condition of ["gte", "lt", "lte", "eq", "ne"]) {
      rulesOf(file).push({ ...rule(file), name: condition, condition });
    }
    expect(configOf(file).rules.map((r) => r.message)).toEqual([
      "co2 above {threshold} {unit}: {value} {unit}",
      "co2 at or above {threshold} {unit}: {value} {unit}",
      "co2 below {threshold} {unit}: {value} {unit}",
      "co2 at or below {threshold} {unit}: {value} {unit}",
      "co2 equal to {threshold} {unit}: {value} {unit}",
      "co2 not equal to {threshold} {unit}: {value} {unit}",
    ]);
  });

  test("the default message leaves {unit} out for a register without a unit", () => {
    const file = fileWithRule();
    rule(file).register = "starts";
    expect(configOf(file).rules[0]?.message).toBe("starts above {threshold}: {value}");
  });

  test("a template register, and an unnamed device by its slave_id", () => {
    const file = fileWithRule();
    rulesOf(file).push(
      { name: "PV", gateway: "FH-DEMO-001", device: 4, register: "ac_power", condition: "lt", threshold: 0.5 },
      { name: "Flow", gateway: "FH-DEMO-001", device: 3, register: "flow", condition: "lte", threshold: -2.5 },
    );
    const [, pv, flow] = configOf(file).rules;
    expect(pv?.modbusDeviceId).toBe(stableUuid("modbus-device", "FH-DEMO-001", "10.0.0.7:502/4"));
    expect(pv?.registerId).toBe(stableUuid("register", "FH-DEMO-001", "10.0.0.7:502/4", "ac_power"));
    expect(pv?.message).toBe("ac_power below {threshold} {unit}: {value} {unit}");
    expect(flow?.modbusDeviceId).toBe(stableUuid("modbus-device", "FH-DEMO-001", "10.0.0.8:502/3"));
    expect(flow?.registerId).toBe(stableUuid("register", "FH-DEMO-001", "10.0.0.8:502/3", "flow"));
    expect(flow?.threshold).toBe(-2.5);
  });

  test("a bool register counts as numeric (0 or 1)", () => {
    const file = fileWithRule();
    Object.assign(rule(file), { register: "door_open", condition: "eq", threshold: 1 });
    expect(configOf(file).rules[0]?.message).toBe("door_open equal to {threshold}: {value}");
  });

  test("no rules section: no rules, no automations, the offline detector with its defaults", () => {
    const file = fileWithRule();
    delete file.rules;
    const config = configOf(file);
    expect(config.rules).toEqual([]);
    expect(config.automations).toEqual([]);
    expect(config.offlineDetector).toEqual({
      id: detectorId,
      name: "Gateway offline",
      enabled: true,
      severity: "critical",
      devices: false,
    } satisfies OfflineDetectorConfig);
  });

  test("ids stay the same when rules are reordered or edited, and follow the name", () => {
    const file = fileWithRule();
    rulesOf(file).push({ ...rule(file), name: "CO2 very high", threshold: 1500 });
    const before = configOf(file).rules.map((r) => [r.name, r.id]);
    rulesOf(file).reverse();
    rule(file, 0).threshold = 2000;
    const after = configOf(file).rules.map((r) => [r.name, r.id]);
    expect(Object.fromEntries(after)).toEqual(Object.fromEntries(before));
    expect(Object.fromEntries(after)["CO2 very high"]).toBe(stableUuid("rule", "CO2 very high"));
  });
});

describe("offline_alerts: output", () => {
  test("every field written", () => {
    const file = fileWithRule();
    file.offline_alerts = { enabled: false, severity: "info", name: "Box offline", id: explicitId.toUpperCase() };
    expect(configOf(file).offlineDetector).toEqual({
      id: explicitId,
      name: "Box offline",
      enabled: false,
      severity: "info",
      devices: false,
    });
  });

  test("its derived id does not depend on its name", () => {
    const file = fileWithRule();
    file.offline_alerts = { name: "Box offline" };
    expect(configOf(file).offlineDetector.id).toBe(detectorId);
  });
});

describe("automations: output", () => {
  test("a rule trigger takes the rule's id and its gateway's organisation", () => {
    const file = fileWithRule();
    file.automations = [{ name: "Notify CO2", trigger: { rule: "CO2 high" }, actions: webhook }];
    expect(configOf(file).automations).toEqual([
      {
        id: stableUuid("automation", "Notify CO2"),
        name: "Notify CO2",
        enabled: true,
        orgKey: "acme",
        trigger: { kind: "rule", ruleId: stableUuid("rule", "CO2 high") },
        actions: [{ type: "webhook" }],
      } satisfies AutomationConfig,
    ]);
  });

  test("a rule trigger follows a written rule id", () => {
    const file = fileWithRule();
    rule(file).id = explicitId;
    file.automations = [{ name: "Notify CO2", trigger: { rule: "CO2 high" }, actions: webhook }];
    expect(configOf(file).automations[0]?.trigger).toEqual({ kind: "rule", ruleId: explicitId });
  });

  test("with several organisations, a rule trigger needs no organization", () => {
    const file = fileWithRule();
    file.organizations = [
      { key: "acme", name: "Acme" },
      { key: "beta", name: "Beta" },
    ];
    at(file, "gateways", 0).organization = "beta";
    file.automations = [
      { name: "Notify CO2", trigger: { rule: "CO2 high" }, actions: webhook },
      { name: "Also", organization: "beta", trigger: { rule: "CO2 high" }, actions: webhook },
      { name: "Report", organization: "acme", trigger: { schedule: "0 7 * * *" }, actions: webhook },
    ];
    expect(configOf(file).automations.map((a) => a.orgKey)).toEqual(["beta", "beta", "acme"]);
  });

  test("a schedule trigger, written id, disabled", () => {
    const file = fileWithRule();
    file.automations = [
      {
        name: "Morning report",
        id: otherId.toUpperCase(),
        enabled: false,
        organization: "acme",
        trigger: { schedule: " 0 0 7 * * MON-FRI " },
        actions: [{ type: "webhook" }, { type: "webhook" }],
      },
    ];
    expect(configOf(file).automations).toEqual([
      {
        id: otherId,
        name: "Morning report",
        enabled: false,
        orgKey: "acme",
        trigger: { kind: "schedule", cron: "0 0 7 * * MON-FRI" },
        actions: [{ type: "webhook" }, { type: "webhook" }],
      },
    ]);
  });

  test("the offline detector can trigger an automation, by its name", () => {
    const file = fileWithRule();
    file.offline_alerts = { name: "Box offline", id: explicitId };
    file.automations = [{ name: "Page", trigger: { rule: "Box offline" }, actions: webhook }];
    const [automation] = configOf(file).automations;
    expect(automation?.trigger).toEqual({ kind: "rule", ruleId: explicitId });
    expect(automation?.orgKey).toBe("acme");
  });
});

describe("rules: problems", () => {
  test("required fields", () => {
    const file = fileWithRule();
    file.rules = [{}];
    expect(problemsOf(file).map((p) => `${p.path}: ${p.message}`)).toEqual([
      "rules[0].condition: is required",
      "rules[0].device: is required",
      "rules[0].gateway: is required",
      "rules[0].name: is required",
      "rules[0].register: is required",
      "rules[0].threshold: is required",
    ]);
  });

  test("unknown fields", () => {
    const file = fileWithRule();
    rule(file).treshold = 1;
    rule(file).colour = "red";
    expect(problemsOf(file)).toEqual([
      { path: "rules[0].treshold", message: 'unknown field "treshold" (did you mean "threshold"?)' },
      {
        path: "rules[0].colour",
        message:
          'unknown field "colour" (allowed: name, id, gateway, device, register, condition, threshold, severity, message, hysteresis, for_s, enabled)',
      },
    ]);
  });

  test("wrong types and values", () => {
    const file = fileWithRule();
    Object.assign(rule(file), {
      id: "1234",
      condition: "above",
      threshold: "900",
      severity: "high",
      message: "",
      hysteresis: -1,
      for_s: 86_401,
      enabled: "yes",
    });
    expect(problemsOf(file).map((p) => `${p.path}: ${p.message}`)).toEqual([
      'rules[0].condition: must be one of gt, gte, lt, lte, eq, ne; got "above"',
      'rules[0].threshold: must be a number; got "900"',
      'rules[0].id: must be a UUID such as 0b7e6a8c-3f1d-4f2a-9c55-2d1e8b7a6c40; got "1234"',
      'rules[0].severity: must be one of critical, warning, info; got "high"',
      "rules[0].message: must not be empty",
      "rules[0].hysteresis: must be at least 0; got -1",
      "rules[0].for_s: must be between 0 and 86400; got 86401",
      'rules[0].enabled: must be true or false; got "yes"',
    ]);
  });

  test("threshold must be finite, for_s whole", () => {
    const file = fileWithRule();
    rule(file).threshold = Number.POSITIVE_INFINITY;
    rule(file).for_s = 1.5;
    expect(problemsOf(file).map((p) => `${p.path}: ${p.message}`)).toEqual([
      "rules[0].threshold: must be a number; got .inf",
      "rules[0].for_s: must be a whole number; got 1.5",
    ]);
  });

  test("device is a name or a slave_id", () => {
    const file = fileWithRule();
    rule(file).device = true;
    expectOnlyProblem(
      file,
      "rules[0].device",
      "must be a device name (text) or, for an unnamed device, its slave_id (a whole number); got true",
    );
  });

  test("a gateway that is not defined", () => {
    const file = fileWithRule();
    rule(file).gateway = "FH-DEMO-01";
    rule(file).device = "No such device"; // not looked at while the gateway does not resolve
    expectOnlyProblem(
      file,
      "rules[0].gateway",
      'names gateway "FH-DEMO-01", which is not defined (did you mean "FH-DEMO-001"?)',
    );
  });

  test("a device the gateway does not have", () => {
    const file = fileWithRule();
    rule(file).device = "Climate computr";
    rule(file).register = "nothing"; // not looked at while the device does not resolve
    expectOnlyProblem(
      file,
      "rules[0].device",
      'names device "Climate computr", which gateway "FH-DEMO-001" does not have (did you mean "Climate computer"?)',
    );
  });

  test("a slave_id no unnamed device has", () => {
    const file = fileWithRule();
    rule(file).device = 9;
    expectOnlyProblem(
      file,
      "rules[0].device",
      'names slave_id 9, which no unnamed device of gateway "FH-DEMO-001" has',
    );
    rule(file).device = 1;
    expectOnlyProblem(
      file,
      "rules[0].device",
      'names slave_id 1, which no unnamed device of gateway "FH-DEMO-001" has; device "Climate computer" has that slave_id: use its name',
    );
  });

  test("a slave_id two unnamed devices have", () => {
    const file = fileWithRule();
    at(file, "gateways", 0, "devices", 2).slave_id = 4;
    rule(file).device = 4;
    expectOnlyProblem(
      file,
      "rules[0].device",
      'names slave_id 4, which 2 unnamed devices of gateway "FH-DEMO-001" have (gateways[0].devices[1], gateways[0].devices[2]); give the device a name and use that',
    );
  });

  test("a register the device does not have", () => {
    const file = fileWithRule();
    rule(file).register = "co3";
    expectOnlyProblem(
      file,
      "rules[0].register",
      'names register "co3", which device "Climate computer" does not have (did you mean "co2"?)',
    );
    const unnamed = fileWithRule();
    Object.assign(rule(unnamed), { device: 3, register: "flw" });
    expectOnlyProblem(
      unnamed,
      "rules[0].register",
      'names register "flw", which the device with slave_id 3 does not have (did you mean "flow"?)',
    );
  });

  test("a template register that exclude leaves out", () => {
    const file = fileWithRule();
    Object.assign(rule(file), { device: 4, register: "model" });
    expectOnlyProblem(
      file,
      "rules[0].register",
      'names register "model", which gateways[0].devices[1].exclude[0] leaves out of the device with slave_id 4',
    );
  });

  test("a device whose template is unknown: its registers are not second-guessed", () => {
    const file = fileWithRule();
    at(file, "gateways", 0, "devices", 1).template = { brand: "Fronius", model: "Simo" };
    Object.assign(rule(file), { device: 4, register: "ac_power" });
    expect(problemsOf(file).map((p) => p.path)).toEqual(["gateways[0].devices[1].template.model"]);
  });

  test("a text register", () => {
    const file = fileWithRule();
    rule(file).register = "program";
    expectOnlyProblem(
      file,
      "rules[0].register",
      'names register "program", which holds text (data_type string); a rule needs a register with a numeric value',
    );
  });

  test("hysteresis only with gt, gte, lt, lte", () => {
    for (const condition of ["eq", "ne"]) {
      const file = fileWithRule();
      Object.assign(rule(file), { condition, hysteresis: 0 });
      expectOnlyProblem(
        file,
        "rules[0].hysteresis",
        `is only allowed when condition is gt, gte, lt or lte (this rule's condition is ${condition})`,
      );
    }
    for (const condition of ["gt", "gte", "lt", "lte"]) {
      const file = fileWithRule();
      Object.assign(rule(file), { condition, hysteresis: 2.5 });
      expect(configOf(file).rules[0]?.hysteresis).toBe(2.5);
    }
  });

  test("message placeholders", () => {
    const file = fileWithRule();
    rule(file).message = "{register} is {valu} {unit} (limit {threshold})";
    expectOnlyProblem(
      file,
      "rules[0].message",
      "has an unknown placeholder {valu} (did you mean {value}?); the placeholders are {value}, {unit}, {threshold}, {register}, {device}, {gateway}",
    );
    rule(file).message = "{severity}!";
    expectOnlyProblem(
      file,
      "rules[0].message",
      "has an unknown placeholder {severity}; the placeholders are {value}, {unit}, {threshold}, {register}, {device}, {gateway}",
    );
    rule(file).message = "CO2 { value } is high: {value}";
    expect(configOf(file).rules[0]?.message).toBe("CO2 { value } is high: {value}");
  });

  test("names are unique, also against the offline detector's", () => {
    const file = fileWithRule();
    rulesOf(file).push({ ...rule(file) }, { ...rule(file), name: "Gateway offline" });
    expect(problemsOf(file)).toEqual([
      { path: "rules[1].name", message: 'duplicate name "CO2 high" (also at rules[0].name)' },
      {
        path: "rules[2].name",
        message:
          'duplicate name "Gateway offline" (also the offline detector\'s default name; rename this rule or set offline_alerts.name)',
      },
    ]);
    const written = fileWithRule();
    written.offline_alerts = { name: "CO2 high" };
    expectOnlyProblem(
      written,
      "rules[0].name",
      'duplicate name "CO2 high" (also the offline detector\'s, at offline_alerts.name)',
    );
  });

  test("ids are unique among the rules and the offline detector", () => {
    const file = fileWithRule();
    rule(file).id = explicitId;
    rulesOf(file).push({ ...rule(file), name: "Other", id: explicitId.toUpperCase() });
    expectOnlyProblem(file, "rules[1].id", `duplicate id "${explicitId}" (also at rules[0].id)`);

    const withDetector = fileWithRule();
    withDetector.offline_alerts = { id: explicitId };
    rule(withDetector).id = explicitId;
    expectOnlyProblem(withDetector, "rules[0].id", `duplicate id "${explicitId}" (also at offline_alerts.id)`);

    const copied = fileWithRule();
    rule(copied).id = detectorId;
    expectOnlyProblem(copied, "rules[0].id", `duplicate id "${detectorId}" (also the id derived for offline_alerts)`);

    // A rule named like the detector's natural key derives the detector's id.
    const derived = fileWithRule();
    rule(derived).name = "offline-detector";
    expectOnlyProblem(
      derived,
      "rules[0]",
      `its derived id "${detectorId}" is already used (also the id derived for offline_alerts); give it an explicit id`,
    );

    // Rule ids and automation ids are different kinds.
    const kinds = fileWithRule();
    rule(kinds).id = explicitId;
    kinds.automations = [{ name: "A", id: explicitId, trigger: { rule: "CO2 high" }, actions: webhook }];
    expect(configOf(kinds).automations[0]?.id).toBe(explicitId);
  });

  test("a broken rule does not hide the problems of the others", () => {
    const file = fileWithRule();
    rulesOf(file).unshift("not a rule" as unknown as Yamlish);
    rulesOf(file).push({ ...rule(file, 1), name: "Other", register: "co3" });
    expect(problemsOf(file).map((p) => `${p.path}: ${p.message}`)).toEqual([
      'rules[0]: must be a mapping (field: value); got "not a rule"',
      'rules[2].register: names register "co3", which device "Climate computer" does not have (did you mean "co2"?)',
    ]);
  });

  test("rules must be a list", () => {
    expectOnlyProblem({ ...fileWithRule(), rules: { name: "x" } }, "rules", "must be a list; got a mapping");
  });
});

describe("offline_alerts: problems", () => {
  test("fields and values", () => {
    const file = fileWithRule();
    file.offline_alerts = { enabled: "no", severity: "urgent", name: "", id: "x", after_s: 60 };
    expect(problemsOf(file).map((p) => `${p.path}: ${p.message}`)).toEqual([
      'offline_alerts.enabled: must be true or false; got "no"',
      'offline_alerts.severity: must be one of critical, warning, info; got "urgent"',
      "offline_alerts.name: must not be empty",
      'offline_alerts.id: must be a UUID such as 0b7e6a8c-3f1d-4f2a-9c55-2d1e8b7a6c40; got "x"',
      'offline_alerts.after_s: unknown field "after_s" (allowed: enabled, severity, name, id, devices)',
    ]);
  });

  test("must be a mapping", () => {
    expectOnlyProblem(
      { ...fileWithRule(), offline_alerts: true },
      "offline_alerts",
      "must be a mapping (field: value); got true",
    );
  });
});

describe("automations: problems", () => {
  const withAutomations = (...automations: Yamlish[]): Yamlish => ({ ...fileWithRule(), automations });
  const twoOrgs = (...automations: Yamlish[]) => {
    const file = withAutomations(...automations);
    file.organizations = [
      { key: "acme", name: "Acme" },
      { key: "beta", name: "Beta" },
    ];
    at(file, "gateways", 0).organization = "acme";
    return file;
  };

  test("required fields and unknown fields", () => {
    expect(problemsOf(withAutomations({ title: "x" })).map((p) => `${p.path}: ${p.message}`)).toEqual([
      'automations[0].title: unknown field "title" (allowed: name, id, enabled, organization, trigger, actions)',
      "automations[0].actions: is required",
      "automations[0].name: is required",
      "automations[0].trigger: is required",
    ]);
  });

  test("at least one action, of a known type", () => {
    expectOnlyProblem(
      withAutomations({ name: "A", trigger: { rule: "CO2 high" }, actions: [] }),
      "automations[0].actions",
      "must list at least one action",
    );
    expectOnlyProblem(
      withAutomations({ name: "A", trigger: { rule: "CO2 high" }, actions: [{ type: "email" }] }),
      "automations[0].actions[0].type",
      'must be "webhook"; got "email"',
    );
    expectOnlyProblem(
      withAutomations({ name: "A", trigger: { rule: "CO2 high" }, actions: [{}] }),
      "automations[0].actions[0].type",
      "is required",
    );
    expectOnlyProblem(
      withAutomations({ name: "A", trigger: { rule: "CO2 high" }, actions: [{ type: "webhook", url: "http://x" }] }),
      "automations[0].actions[0].url",
      'unknown field "url" (allowed: type)',
    );
  });

  test("names and ids are unique", () => {
    const a = { name: "A", trigger: { rule: "CO2 high" }, actions: webhook };
    expectOnlyProblem(
      withAutomations(a, { ...a }),
      "automations[1].name",
      'duplicate name "A" (also at automations[0].name)',
    );
    expectOnlyProblem(
      withAutomations({ ...a, id: explicitId }, { ...a, name: "B", id: explicitId }),
      "automations[1].id",
      `duplicate id "${explicitId}" (also at automations[0].id)`,
    );
    const derived = stableUuid("automation", "A");
    expectOnlyProblem(
      withAutomations(a, { ...a, name: "B", id: derived }),
      "automations[1].id",
      `duplicate id "${derived}" (also the id derived for automations[0])`,
    );
  });

  test("the trigger has exactly one of rule and schedule", () => {
    expectOnlyProblem(
      withAutomations({ name: "A", trigger: {}, actions: webhook }),
      "automations[0].trigger",
      "must have rule (the name of a rule) or schedule (a cron expression)",
    );
    expectOnlyProblem(
      withAutomations({ name: "A", trigger: { rule: "CO2 high", schedule: "0 7 * * *" }, actions: webhook }),
      "automations[0].trigger",
      "must have either rule or schedule, not both",
    );
    expectOnlyProblem(
      withAutomations({ name: "A", trigger: { rules: "CO2 high" }, actions: webhook }),
      "automations[0].trigger.rules",
      'unknown field "rules" (did you mean "rule"?)',
    );
    expectOnlyProblem(
      withAutomations({ name: "A", trigger: "CO2 high", actions: webhook }),
      "automations[0].trigger",
      'must be a mapping (field: value); got "CO2 high"',
    );
  });

  test("a rule that is not defined", () => {
    expectOnlyProblem(
      withAutomations({ name: "A", trigger: { rule: "CO2 hihg" }, actions: webhook }),
      "automations[0].trigger.rule",
      'names rule "CO2 hihg", which is not defined (did you mean "CO2 high"?)',
    );
    expectOnlyProblem(
      withAutomations({ name: "A", trigger: { rule: "Gateway ofline" }, actions: webhook }),
      "automations[0].trigger.rule",
      'names rule "Gateway ofline", which is not defined (did you mean "Gateway offline"?)',
    );
  });

  test.each([
    [
      "0 7 * *",
      'must be a cron expression of 5 fields (minute hour day-of-month month day-of-week) or 6 (seconds first); got "0 7 * *" (4 fields)',
    ],
    [
      "0 0 7 * * * 2030",
      'must be a cron expression of 5 fields (minute hour day-of-month month day-of-week) or 6 (seconds first); got "0 0 7 * * * 2030" (7 fields)',
    ],
    [
      "@daily",
      'must be a cron expression of 5 fields (minute hour day-of-month month day-of-week) or 6 (seconds first); got "@daily" (1 field)',
    ],
    ["61 7 * * *", "is not a valid cron expression: CronPattern: Invalid value for minute: 61"],
    ["0 7 * * FUNDAY", /^is not a valid cron expression: /],
    ["0 0 30 2 *", 'never runs: no date matches "0 0 30 2 *"'],
  ])("schedule %p", (schedule, message) => {
    expectOnlyProblem(
      withAutomations({ name: "A", trigger: { schedule }, actions: webhook }),
      "automations[0].trigger.schedule",
      message,
    );
  });

  test.each(["0 7 * * *", "*/15 * * * *", "0 8 * * MON-FRI", "*/30 * * * * *", "0 0 7 1 JAN,JUL *"])(
    "schedule %p is valid",
    (schedule) => {
      const config = configOf(withAutomations({ name: "A", trigger: { schedule }, actions: webhook }));
      expect(config.automations[0]?.trigger).toEqual({ kind: "schedule", cron: schedule });
    },
  );

  test("an organisation that is not defined", () => {
    expectOnlyProblem(
      withAutomations({ name: "A", organization: "acmee", trigger: { rule: "CO2 high" }, actions: webhook }),
      "automations[0].organization",
      'names organisation "acmee", which is not defined (did you mean "acme"?)',
    );
    expectOnlyProblem(
      withAutomations({ name: "A", organization: "Acme", trigger: { rule: "CO2 high" }, actions: webhook }),
      "automations[0].organization",
      "must be 1 to 63 lowercase letters, digits, '_' or '-', starting with a letter or digit; got \"Acme\"",
    );
  });

  test("a rule trigger keeps to the rule's organisation", () => {
    expectOnlyProblem(
      twoOrgs({ name: "A", organization: "beta", trigger: { rule: "CO2 high" }, actions: webhook }),
      "automations[0].organization",
      'names organisation "beta", but its rule "CO2 high" watches gateway "FH-DEMO-001" of organisation "acme"; an automation on a rule belongs to the rule\'s organisation (leave organization out)',
    );
  });

  test("organization is required for a schedule or the offline detector when there are several", () => {
    expect(
      problemsOf(
        twoOrgs(
          { name: "A", trigger: { schedule: "0 7 * * *" }, actions: webhook },
          { name: "B", trigger: { rule: "Gateway offline" }, actions: webhook },
          { name: "C", trigger: { rule: "CO2 high" }, actions: webhook },
        ),
      ),
    ).toEqual([
      {
        path: "automations[0].organization",
        message: "is required when more than one organisation is defined and the trigger is a schedule",
      },
      {
        path: "automations[1].organization",
        message:
          "is required when more than one organisation is defined and the trigger is the offline detector (it watches every gateway)",
      },
    ]);
  });
});
