/**
 * Alerts on both engines (engines.ts), the promises of src/store/contract/alerts.ts: GET
 * /alerts' filters, order and totals; trigger, re-trigger and return; acknowledge
 * and resolve written only while the status is the one seen, each change with its
 * event and no event without it; an alert remembers its rule's register and find
 * names it with its Modbus device. On PostgreSQL, two pools (two central processes)
 * acknowledging or triggering the same alert at once: exactly one wins.
 */
import { beforeAll, expect, test } from "bun:test";
import type { EventType } from "../../../src/store/contract/event-types.ts";
import { sampleEvent } from "../../harness/events.ts";
import { describeOnBothEngines, type OpenDomains } from "./engines.ts";
import { ids } from "./inventory-fixture.ts";

const t0 = Date.UTC(2026, 5, 1);
const uuid = (n: number) => `10000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
/** The events of an alert change, naming the alert the store says changed. */
const draft = (orgId: number, type: EventType, at: number) => (alertUuid: string) => [
  sampleEvent(type, orgId, at, "FH-1", alertUuid),
];

describeOnBothEngines("alerts", t0, (opened, engine) => {
  let store: OpenDomains;
  let acme = -1;
  let beta = -1;
  let gatewayA = -1;
  let gatewayB = -1;
  beforeAll(async () => {
    store = opened();
    acme = (await store.organizations.findByKey("acme"))?.id ?? -1;
    beta = (await store.organizations.findByKey("beta"))?.id ?? -1;
    gatewayA = (await store.gateways.locate(acme, ids.gatewayA)) ?? -1;
    gatewayB = (await store.gateways.locate(acme, ids.gatewayB)) ?? -1;
  });
  test("seeded alerts: listed most recently triggered first, filtered, paged, counted; a seed of a known id is left alone", async () => {
    const seeds = [
      { n: 1, status: "active", severity: "critical", gatewayId: gatewayA, at: 3 },
      { n: 2, status: "resolved", severity: "warning", gatewayId: gatewayB, at: 1 },
      { n: 3, status: "acknowledged", severity: "warning", gatewayId: gatewayA, at: 2 },
      { n: 4, status: "returned", severity: "info", gatewayId: null, at: 2 },
    ] as const;
    for (const seed of seeds)
      await store.alerts.seed({
        uuid: uuid(seed.n),
        orgId: acme,
        gatewayId: seed.gatewayId,
        severity: seed.severity,
        message: `m${seed.n}`,
        status: seed.status,
        createdAt: t0,
        lastTriggeredAt: t0 + seed.at * 1000,
        resolvedAt: seed.status === "resolved" ? t0 + 5000 : null,
      });
    await store.alerts.seed({
      uuid: uuid(1),
      orgId: acme,
      gatewayId: null,
      severity: "info",
      message: "again",
      status: "resolved",
      createdAt: t0,
    });
    const all = await store.alerts.list(acme, { limit: 10, offset: 0 });
    // Ties on last_triggered_at: newest id first.
    expect(all.rows.map((a) => a.uuid)).toEqual([uuid(1), uuid(4), uuid(3), uuid(2)]);
    expect(all.total).toBe(4);
    expect(all.rows[0]).toEqual({
      uuid: uuid(1),
      gatewayUuid: ids.gatewayA,
      registerUuid: null,
      ruleId: null,
      severity: "critical",
      message: "m1",
      status: "active",
      value: null,
      createdAt: t0,
      lastTriggeredAt: t0 + 3000,
      returnedAt: null,
      ackAt: null,
      ackNote: null,
      resolvedAt: null,
      resolveNote: null,
      entryCount: 1,
    });
    expect(
      (await store.alerts.list(acme, { status: "resolved", limit: 10, offset: 0 })).rows.map((a) => a.uuid),
    ).toEqual([uuid(2)]);
    expect(
      await store.alerts.list(acme, { severity: "warning", gatewayId: gatewayA, limit: 10, offset: 0 }),
    ).toMatchObject({
      rows: [{ uuid: uuid(3) }],
      total: 1,
    });
    expect(await store.alerts.list(acme, { limit: 2, offset: 1 })).toMatchObject({
      rows: [{ uuid: uuid(4) }, { uuid: uuid(3) }],
      total: 4,
    });
    expect(await store.alerts.countOpen(acme)).toBe(3);
    expect(await store.alerts.list(beta, { limit: 10, offset: 0 })).toEqual({ rows: [], total: 0 });
  });

  test("a trigger opens an alert with its event, a second re-triggers it, a return marks it once", async () => {
    const trigger = {
      ruleId: "hot",
      gatewayId: gatewayA,
      registerUuid: ids.register(2),
      orgId: acme,
      severity: "warning" as const,
      message: "too hot",
      value: 81,
      at: t0 + 10_000,
      newUuid: uuid(10),
    };
    const before = (await store.events(acme)).length;
    const withFollowUp = (alertUuid: string) => [
      ...draft(acme, "alert.triggered", t0 + 10_000)(alertUuid),
      sampleEvent("automation.triggered", acme, t0 + 10_000),
    ];
    expect(await store.alerts.trigger(trigger, withFollowUp)).toBe(uuid(10));
    expect(
      await store.alerts.trigger(
        { ...trigger, at: t0 + 20_000, value: 90, message: "hotter", newUuid: uuid(11) },
        draft(acme, "alert.triggered", t0 + 20_000),
      ),
    ).toBe(uuid(10));
    expect(await store.alerts.find(uuid(10))).toEqual({
      id: (await store.alerts.find(uuid(10)))?.id as number,
      uuid: uuid(10),
      orgId: acme,
      gatewayUuid: ids.gatewayA,
      gatewaySerial: "SN-A",
      gatewayName: "Alpha",
      modbusDeviceUuid: ids.deviceA1,
      modbusDeviceName: "meter",
      registerUuid: ids.register(2),
      registerName: "r2",
      registerUnit: "V",
      ruleId: "hot",
      severity: "warning",
      message: "hotter",
      status: "active",
      value: 90,
      ackAt: null,
      resolvedAt: null,
      edgeSite: null,
      requestedAction: null,
    });
    expect((await store.alerts.list(acme, { limit: 1, offset: 0 })).rows[0]).toMatchObject({
      uuid: uuid(10),
      entryCount: 2,
      lastTriggeredAt: t0 + 20_000,
      createdAt: t0 + 10_000,
    });
    const open = (await store.alerts.allOpen()).find((a) => a.uuid === uuid(10));
    expect(open).toMatchObject({ ruleId: "hot", gatewayId: gatewayA, status: "active", entryCount: 2 });
    const target = { ruleId: "hot", gatewayId: gatewayA, at: t0 + 30_000, value: null };
    expect(await store.alerts.markReturned(target, draft(acme, "alert.returned", t0 + 30_000))).toBe(uuid(10));
    expect(await store.alerts.markReturned(target, draft(acme, "alert.returned", t0 + 31_000))).toBeNull();
    expect(
      await store.alerts.markReturned({ ...target, ruleId: "cold" }, draft(acme, "alert.returned", t0)),
    ).toBeNull();
    const alert = (await store.alerts.list(acme, { limit: 1, offset: 0 })).rows[0];
    expect(alert).toMatchObject({ status: "returned", returnedAt: t0 + 30_000, value: 90 });
    const events = (await store.events(acme)).slice(before);
    expect(events.map((e) => e.type)).toEqual([
      "alert.triggered",
      "automation.triggered",
      "alert.triggered",
      "alert.returned",
    ]);
    // The events are built with the id of the alert the store opened, then of the one it re-triggered.
    expect(events.map((e) => e.data.alert_id)).toEqual([uuid(10), undefined, uuid(10), uuid(10)]);
  });

  test("acknowledge and resolve write only while the status is the one seen, each with its event", async () => {
    const alert = await store.alerts.find(uuid(10));
    const id = alert?.id as number;
    const before = (await store.events(acme)).length;
    const ackEvent = sampleEvent("alert.acknowledged", acme, t0 + 40_000);
    expect(await store.alerts.acknowledge({ id, from: "active", at: t0 + 40_000, note: "stale" }, ackEvent)).toBe(
      false,
    );
    expect(await store.alerts.acknowledge({ id, from: "returned", at: t0 + 40_000, note: "on it" }, ackEvent)).toBe(
      true,
    );
    expect(await store.alerts.acknowledge({ id, from: "returned", at: t0 + 41_000, note: "again" }, ackEvent)).toBe(
      false,
    );
    const resolveEvent = sampleEvent("alert.resolved", acme, t0 + 50_000);
    expect(await store.alerts.resolve({ id, from: "returned", at: t0 + 50_000, note: null }, resolveEvent)).toBe(false);
    expect(await store.alerts.resolve({ id, from: "acknowledged", at: t0 + 50_000, note: "fixed" }, resolveEvent)).toBe(
      true,
    );
    expect((await store.alerts.list(acme, { limit: 1, offset: 0 })).rows[0]).toMatchObject({
      status: "resolved",
      ackAt: t0 + 40_000,
      ackNote: "on it",
      resolvedAt: t0 + 50_000,
      resolveNote: "fixed",
    });
    expect((await store.events(acme)).slice(before).map((e) => e.type)).toEqual([
      "alert.acknowledged",
      "alert.resolved",
    ]);
    // Resolved: the next trigger of the rule opens a new alert.
    expect(
      await store.alerts.trigger(
        {
          ruleId: "hot",
          gatewayId: gatewayA,
          registerUuid: ids.register(2),
          orgId: acme,
          severity: "warning",
          message: "m",
          value: 1,
          at: t0 + 60_000,
          newUuid: uuid(12),
        },
        draft(acme, "alert.triggered", t0 + 60_000),
      ),
    ).toBe(uuid(12));
  });

  test("an alert names the register its rule watches: none for the detector or another gateway's register; a re-trigger names the rule's register then", async () => {
    const names = async (uuidOf: string) => {
      const found = await store.alerts.find(uuidOf);
      return [
        found?.modbusDeviceUuid,
        found?.modbusDeviceName,
        found?.registerUuid,
        found?.registerName,
        found?.registerUnit,
      ];
    };
    const trigger = (ruleId: string, registerUuid: string | null, n: number) =>
      store.alerts.trigger(
        {
          ruleId,
          gatewayId: gatewayA,
          registerUuid,
          orgId: acme,
          severity: "info",
          message: "m",
          value: registerUuid === null ? null : n,
          at: t0 + 70_000 + n,
          newUuid: uuid(300 + n),
        },
        draft(acme, "alert.triggered", t0 + 70_000 + n),
      );
    const offline = await trigger("offline", null, 1);
    expect(await names(offline)).toEqual([null, null, null, null, null]);
    // ids.register(5) is gateway B's: not remembered for an alert of gateway A.
    const elsewhere = await trigger("misplaced", ids.register(5), 2);
    expect(await names(elsewhere)).toEqual([null, null, null, null, null]);
    expect((await store.alerts.byUuids([elsewhere]))[0]?.registerUuid).toBeNull();
    // Register r1 (no unit) of device "meter"; then the rule moved to r4 (of a device with no name) while its alert was open.
    const moved = await trigger("moved", ids.register(1), 3);
    expect(await names(moved)).toEqual([ids.deviceA1, "meter", ids.register(1), "r1", null]);
    expect(await trigger("moved", ids.register(4), 4)).toBe(moved);
    expect(await names(moved)).toEqual([ids.deviceA2, null, ids.register(4), "r4", "V"]);
    expect((await store.alerts.byUuids([moved]))[0]?.registerUuid).toBe(ids.register(4));
  });

  test.skipIf(engine.openTwin === undefined)(
    "two processes acknowledging the same alerts at once: exactly one succeeds for each, one event each",
    async () => {
      const twin = await (engine.openTwin as NonNullable<typeof engine.openTwin>)(store);
      try {
        const alerts: number[] = [];
        for (let n = 100; n < 120; n++) {
          await store.alerts.seed({
            uuid: uuid(n),
            orgId: beta,
            gatewayId: null,
            severity: "info",
            message: "x",
            status: "active",
            createdAt: t0,
          });
          alerts.push((await store.alerts.find(uuid(n)))?.id as number);
        }
        const before = (await store.events(beta)).length;
        const results = await Promise.all(
          alerts.flatMap((id) =>
            [store, twin].map((process, index) =>
              process.alerts.acknowledge(
                { id, from: "active", at: t0 + index, note: `process ${index}` },
                sampleEvent("alert.acknowledged", beta, t0 + index),
              ),
            ),
          ),
        );
        for (let n = 0; n < alerts.length; n++) {
          expect([results[2 * n], results[2 * n + 1]].filter(Boolean).length).toBe(1);
        }
        expect((await store.events(beta)).length - before).toBe(alerts.length);

        // Both trigger the same rule and gateway at once: one alert, triggered twice.
        const trigger = (n: number) => ({
          ruleId: "race",
          gatewayId: gatewayA,
          registerUuid: null,
          orgId: beta,
          severity: "info" as const,
          message: "m",
          value: n,
          at: t0 + n,
          newUuid: uuid(200 + n),
        });
        const opened = await Promise.all(
          [store, twin].map((process, n) => process.alerts.trigger(trigger(n), draft(beta, "alert.triggered", t0 + n))),
        );
        expect(opened[0]).toBe(opened[1] as string);
        const race = (await store.alerts.allOpen()).filter((a) => a.ruleId === "race");
        expect(race).toMatchObject([{ entryCount: 2 }]);
      } finally {
        await twin.close();
      }
    },
  );
});
