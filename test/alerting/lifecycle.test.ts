/**
 * The alert lifecycle, row by row of docs/alerts.md: values go in through the
 * rules engine (as the pollers' values do), alerts are read through
 * GET /v1/alerts, and every change's event is read from the outbox.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { alertService } from "../../src/alerting/alerts-service.ts";
import { createRulesEngine } from "../../src/alerting/engine.ts";
import type { AutomationConfig, RuleConfig } from "../../src/alerting/rule-model.ts";
import { CodedError } from "../../src/lib/errors.ts";
import { stableUuid } from "../../src/lib/ids.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { sqliteOf } from "../../src/store/sqlite/sqlite-internals.ts";
import { call } from "../harness/http.ts";
import { ids, startTestSite, type TestSite } from "../harness/site.ts";

let site: TestSite;
beforeEach(async () => {
  site = await startTestSite();
});
afterEach(async () => {
  await site.stop();
});

const air = "ACME-1/Climate computer/air_temperature"; // int16, scale 0.1, °C
const detector = {
  id: stableUuid("rule", "offline-detector"),
  name: "Gateway offline",
  enabled: true,
  severity: "critical" as const,
  devices: true,
};

function rule(overrides: Partial<RuleConfig> = {}): RuleConfig {
  return {
    id: stableUuid("rule", "too hot"),
    name: "Too hot",
    enabled: true,
    registerId: site.registerUuid(air),
    gatewayId: ids.acmeGateway1,
    modbusDeviceId: stableUuid("modbus-device", "ACME-1", "Climate computer"),
    condition: "gt",
    threshold: 30,
    severity: "warning",
    message: "{register} above {threshold} {unit}: {value} {unit}",
    hysteresis: 0,
    forMs: 0,
    ...overrides,
  };
}

function engine(rules: RuleConfig[] = [rule()], automations: AutomationConfig[] = []) {
  return createRulesEngine({
    store: site.store,
    clock: site.clock,
    logger: silentLogger(),
    rules,
    offlineDetector: detector,
    automations,
  });
}

/** Feeds one value (engineering units) of the air temperature register at the clock's time + `afterMs`. */
async function feed(rules: Awaited<ReturnType<typeof engine>>, value: number, afterMs = 1_000) {
  site.clock.advance(afterMs);
  await rules.evaluate([{ registerId: site.registerUuid(air), ts: site.clock.now(), raw: Math.round(value * 10) }]);
}

/** The gateway of the watched register, as events name it. */
const gateway1 = { device_id: stableUuid("gateway", "ACME-1"), serial: "ACME-1", device_name: "Greenhouse 1" };
/** The watched register and its Modbus device, as events name them. */
const airNames = () => ({
  modbus_device_id: rule().modbusDeviceId,
  modbus_device_name: "Climate computer",
  register_id: site.registerUuid(air),
  register_name: "air_temperature",
  unit: "°C",
});
const noRegister = {
  modbus_device_id: null,
  modbus_device_name: null,
  register_id: null,
  register_name: null,
  unit: null,
};

type AlertBody = {
  id: string;
  device_id: string | null;
  rule_id: string | null;
  severity: string;
  message: string;
  status: string;
  value: number | null;
  created_at: string;
  last_triggered_at: string | null;
  returned_at: string | null;
  ack_at: string | null;
  ack_note: string | null;
  resolved_at: string | null;
  resolve_note: string | null;
  entry_count: number;
};

async function alerts(query = ""): Promise<AlertBody[]> {
  return (await call<{ data: AlertBody[] }>(site.baseUrl, `/v1/alerts${query}`, { key: site.keys.acme })).body.data;
}
async function eventsOfType(...types: string[]) {
  return (await site.store.events.listAfter(1)).filter((event) => types.includes(event.type));
}
const at = () => new Date(site.clock.now()).toISOString();

describe("rule lifecycle", () => {
  test("(no alert) -> breach: an active alert opens, alert.triggered with the spec's fields", async () => {
    const rules = await engine();
    await feed(rules, 25);
    expect(await alerts()).toEqual([]);
    await feed(rules, 31.5);
    const [alert] = await alerts();
    expect(alert).toMatchObject({
      device_id: ids.acmeGateway1,
      rule_id: rule().id,
      severity: "warning",
      message: "air_temperature above 30 °C: 31.5 °C",
      status: "active",
      value: 31.5,
      created_at: at(),
      last_triggered_at: at(),
      returned_at: null,
      ack_at: null,
      resolved_at: null,
      entry_count: 1,
    });
    expect((await eventsOfType("alert.triggered")).map((event) => event.data)).toEqual([
      {
        alert_id: alert?.id,
        rule_id: rule().id,
        rule_name: "Too hot",
        ...gateway1,
        severity: "warning",
        value: 31.5,
        threshold: 30,
        condition: "gt",
        message: "air_temperature above 30 °C: 31.5 °C",
        source: "rule",
        ...airNames(),
      },
    ]);
  });

  test("a breach that goes on is one alert, not one per reading", async () => {
    const rules = await engine();
    for (const value of [31, 32, 33, 34]) await feed(rules, value);
    expect((await alerts()).map((alert) => alert.entry_count)).toEqual([1]);
    expect(await eventsOfType("alert.triggered")).toHaveLength(1);
  });

  test("active -> value back within limit: returned, returned_at, alert.returned; the alert stays open", async () => {
    const rules = await engine();
    await feed(rules, 31);
    await feed(rules, 29);
    const [alert] = await alerts();
    expect(alert).toMatchObject({ status: "returned", returned_at: at(), resolved_at: null });
    expect((await eventsOfType("alert.returned")).map((event) => event.data)).toEqual([
      {
        alert_id: alert?.id,
        rule_id: rule().id,
        rule_name: "Too hot",
        ...gateway1,
        severity: "warning",
        value: 29,
        condition: "gt",
        source: "rule",
        ...airNames(),
      },
    ]);
  });

  test("returned -> breach again: active, entry_count 2, last_triggered_at moves, alert.triggered again", async () => {
    const rules = await engine();
    await feed(rules, 31);
    const created = at();
    await feed(rules, 29);
    await feed(rules, 35, 60_000);
    const [alert] = await alerts();
    expect(alert).toMatchObject({
      status: "active",
      entry_count: 2,
      created_at: created,
      last_triggered_at: at(),
      value: 35,
    });
    expect(await eventsOfType("alert.triggered")).toHaveLength(2);
  });

  test("active -> acknowledge: acknowledged, ack_at, ack_note, alert.acknowledged", async () => {
    const rules = await engine();
    await feed(rules, 31);
    const [open] = await alerts();
    site.clock.advance(5_000);
    await alertService(site.store, () => site.clock.now()).acknowledge(open?.id ?? "", "Vent opened");
    const [alert] = await alerts();
    expect(alert).toMatchObject({ status: "acknowledged", ack_at: at(), ack_note: "Vent opened" });
    expect((await eventsOfType("alert.acknowledged")).map((event) => event.data)).toEqual([
      {
        alert_id: open?.id,
        ...gateway1,
        rule_id: rule().id,
        severity: "warning",
        message: "air_temperature above 30 °C: 31 °C",
        status: "acknowledged",
        value: 31,
        acknowledged_at: at(),
        resolved_at: null,
        note: "Vent opened",
        // The alert remembers the register its rule watches: named as alert.triggered names it.
        ...airNames(),
      },
    ]);
  });

  test("returned -> acknowledge: acknowledged", async () => {
    const rules = await engine();
    await feed(rules, 31);
    await feed(rules, 28);
    const [open] = await alerts();
    await alertService(site.store, () => site.clock.now()).acknowledge(open?.id ?? "", null);
    expect((await alerts())[0]?.status).toBe("acknowledged");
  });

  test("acknowledged -> value back within limit: returned (the acknowledgement stays recorded)", async () => {
    const rules = await engine();
    await feed(rules, 31);
    const [open] = await alerts();
    await alertService(site.store, () => site.clock.now()).acknowledge(open?.id ?? "", "on it");
    await feed(rules, 29);
    expect((await alerts())[0]).toMatchObject({ status: "returned", ack_note: "on it" });
    expect(await eventsOfType("alert.returned")).toHaveLength(1);
  });

  test("acknowledged (returned since) -> breach again: active, counted", async () => {
    const rules = await engine();
    await feed(rules, 31);
    const [open] = await alerts();
    await alertService(site.store, () => site.clock.now()).acknowledge(open?.id ?? "", null);
    await feed(rules, 29);
    await feed(rules, 32);
    expect((await alerts())[0]).toMatchObject({ status: "active", entry_count: 2 });
  });

  for (const [from, prepare] of [
    ["active", (_rules: Awaited<ReturnType<typeof engine>>) => {}],
    ["returned", (rules: Awaited<ReturnType<typeof engine>>) => feed(rules, 29)],
    [
      "acknowledged",
      async (_rules: Awaited<ReturnType<typeof engine>>, id: string) =>
        await alertService(site.store, () => site.clock.now()).acknowledge(id, null),
    ],
  ] as const) {
    test(`${from} -> resolve: resolved, resolved_at, resolve_note, alert.resolved`, async () => {
      const rules = await engine();
      await feed(rules, 31);
      const [open] = await alerts();
      await prepare(rules, open?.id ?? "");
      expect((await alerts())[0]?.status).toBe(from);
      site.clock.advance(1_000);
      await alertService(site.store, () => site.clock.now()).resolve(open?.id ?? "", "Fixed the valve");
      expect((await alerts())[0]).toMatchObject({
        status: "resolved",
        resolved_at: at(),
        resolve_note: "Fixed the valve",
      });
      const [resolved] = await eventsOfType("alert.resolved");
      expect(resolved?.data).toMatchObject({
        alert_id: open?.id,
        status: "resolved",
        resolved_at: at(),
        note: "Fixed the valve",
        ...airNames(),
      });
    });
  }

  test("invalid transitions are refused with conflict and change nothing", async () => {
    const rules = await engine();
    await feed(rules, 31);
    const [open] = await alerts();
    const service = alertService(site.store, () => site.clock.now());
    await service.acknowledge(open?.id ?? "", null);
    expect(async () => await service.acknowledge(open?.id ?? "", null)).toThrow(
      new CodedError("conflict", `alert ${open?.id} is already acknowledged`),
    );
    await service.resolve(open?.id ?? "", null);
    const before = await alerts();
    const eventCount = (await site.store.events.listAfter(1)).length;
    expect(async () => await service.resolve(open?.id ?? "", null)).toThrow(/already resolved/);
    expect(async () => await service.acknowledge(open?.id ?? "", null)).toThrow(/is resolved/);
    expect(async () => await service.resolve("00000000-0000-0000-0000-000000000000", null)).toThrow(/no alert/);
    expect(await alerts()).toEqual(before);
    expect(await site.store.events.listAfter(1)).toHaveLength(eventCount);
  });

  test("resolved -> a later breach opens a new alert (after the value has come back once)", async () => {
    const rules = await engine();
    await feed(rules, 31);
    const [first] = await alerts();
    await alertService(site.store, () => site.clock.now()).resolve(first?.id ?? "", null);
    await feed(rules, 33); // still breaching: the resolved occurrence, not a new one
    expect(await alerts("?status=active")).toEqual([]);
    await feed(rules, 29);
    await feed(rules, 34);
    const active = await alerts("?status=active");
    expect(active).toHaveLength(1);
    expect(active[0]?.id).not.toBe(first?.id);
    expect(active[0]?.entry_count).toBe(1);
  });
});

describe("rule options", () => {
  test("hysteresis: returned only once the value is past the band", async () => {
    const rules = await engine([rule({ hysteresis: 2 })]);
    await feed(rules, 31);
    await feed(rules, 29); // within 30 - 2
    expect((await alerts())[0]?.status).toBe("active");
    await feed(rules, 28); // 30 - 2: back
    expect((await alerts())[0]?.status).toBe("returned");
  });

  test("duration: the condition must hold for for_s before an alert opens", async () => {
    const rules = await engine([rule({ forMs: 60_000 })]);
    await feed(rules, 31, 0);
    await feed(rules, 32, 30_000);
    expect(await alerts()).toEqual([]);
    await feed(rules, 29, 10_000); // interrupted: the clock starts again
    await feed(rules, 31, 10_000);
    await feed(rules, 31, 50_000);
    expect(await alerts()).toEqual([]);
    await feed(rules, 31, 10_000);
    expect((await alerts())[0]?.status).toBe("active");
  });

  test("duration across clock steps: for_s is measured on the poller's monotonic clock", async () => {
    const rules = await engine([rule({ forMs: 60_000 })]);
    const polled = async (value: number) =>
      await rules.evaluate([
        {
          registerId: site.registerUuid(air),
          ts: site.clock.now(),
          monotonic: site.clock.monotonic(),
          raw: Math.round(value * 10),
        },
      ]);
    await polled(31);
    // A day ahead: the condition has not held a minute yet.
    site.clock.step(86_400_000);
    site.clock.advance(1_000);
    await polled(31);
    expect(await alerts()).toEqual([]);
    // Back to the right time: a minute after it began, the alert opens.
    site.clock.step(-86_400_000);
    site.clock.advance(59_000);
    await polled(31);
    expect((await alerts())[0]?.status).toBe("active");
  });

  test("each condition", async () => {
    const cases = [
      ["gt", 30, [30, 30.1]],
      ["gte", 30, [29.9, 30]],
      ["lt", 10, [10, 9.9]],
      ["lte", 10, [10.1, 10]],
      ["eq", 20, [20.1, 20]],
      ["ne", 20, [20, 20.1]],
    ] as const;
    for (const [condition, threshold, [quiet, breach]] of cases) {
      const id = stableUuid("rule", condition);
      const rules = await engine([rule({ id, name: condition, condition, threshold })]);
      await feed(rules, quiet);
      expect((await eventsOfType("alert.triggered")).filter((event) => event.data.rule_id === id)).toHaveLength(0);
      await feed(rules, breach);
      expect((await eventsOfType("alert.triggered")).filter((event) => event.data.rule_id === id)).toHaveLength(1);
    }
  });

  test("a disabled rule never fires", async () => {
    const rules = await engine([rule({ enabled: false })]);
    await feed(rules, 99);
    expect(await alerts()).toEqual([]);
  });
});

describe("offline detector", () => {
  test("offline opens a detector alert without value or threshold; online returns it", async () => {
    const rules = await engine([]);
    await rules.gatewayOffline(ids.acmeGateway2, site.clock.now());
    const [alert] = await alerts(`?device_id=${ids.acmeGateway2}`);
    expect(alert).toMatchObject({
      rule_id: detector.id,
      severity: "critical",
      status: "active",
      value: null,
      message: "Gateway Greenhouse 2 is offline",
    });
    const [triggered] = await eventsOfType("alert.triggered");
    expect(triggered?.data).toEqual({
      alert_id: alert?.id,
      rule_id: detector.id,
      rule_name: "Gateway offline",
      device_id: ids.acmeGateway2,
      serial: "ACME-2",
      device_name: "Greenhouse 2",
      severity: "critical",
      condition: "offline",
      message: "Gateway Greenhouse 2 is offline",
      source: "detector",
      ...noRegister,
    });
    site.clock.advance(60_000);
    await rules.gatewayOnline(ids.acmeGateway2, site.clock.now());
    expect((await alerts(`?device_id=${ids.acmeGateway2}`))[0]?.status).toBe("returned");
    expect((await eventsOfType("alert.returned"))[0]?.data).toEqual({
      alert_id: alert?.id,
      rule_id: detector.id,
      rule_name: "Gateway offline",
      device_id: ids.acmeGateway2,
      serial: "ACME-2",
      device_name: "Greenhouse 2",
      severity: "critical",
      condition: "offline",
      source: "detector",
      ...noRegister,
    });
    // Resolved, the offline alert names no register either.
    await alertService(site.store, () => site.clock.now()).resolve(alert?.id ?? "", null);
    expect((await eventsOfType("alert.resolved"))[0]?.data).toMatchObject({
      alert_id: alert?.id,
      device_id: ids.acmeGateway2,
      ...noRegister,
    });
  });
});

describe("automations", () => {
  test("a rule firing runs its automation: automation.triggered with the actions", async () => {
    const automation: AutomationConfig = {
      id: stableUuid("automation", "notify"),
      name: "Notify",
      enabled: true,
      orgKey: "acme",
      trigger: { kind: "rule", ruleId: rule().id },
      actions: [{ type: "webhook" }],
    };
    const rules = await engine([rule()], [automation]);
    await feed(rules, 31);
    await feed(rules, 29);
    await feed(rules, 32);
    const [alert] = await alerts();
    // What triggered it: the alert (re-triggered the second time) on the watched register, and the value.
    const triggered = (value: number) => ({
      rule_id: automation.id,
      rule_name: "Notify",
      actions: [{ type: "webhook" }],
      trigger: "alert",
      alert_id: alert?.id,
      alert_status: "active",
      source: "rule",
      ...gateway1,
      ...airNames(),
      value,
    });
    expect((await eventsOfType("automation.triggered")).map((event) => event.data)).toEqual([
      triggered(31),
      triggered(32),
    ]);
  });
});

test("a scheduled automation records automation.triggered when its time comes", async () => {
  const automation: AutomationConfig = {
    id: stableUuid("automation", "morning"),
    name: "Morning report",
    enabled: true,
    orgKey: "acme",
    trigger: { kind: "schedule", cron: "0 7 * * *" },
    actions: [{ type: "webhook" }],
  };
  const rules = await engine([], [automation]);
  const org = sqliteOf(site.store).query<{ id: number }, []>("SELECT id FROM organizations WHERE key = 'acme'").get();
  await rules.runScheduled(automation, org?.id ?? 0);
  expect((await eventsOfType("automation.triggered")).map((event) => event.data)).toEqual([
    { rule_id: automation.id, rule_name: "Morning report", actions: [{ type: "webhook" }], trigger: "schedule" },
  ]);
});
