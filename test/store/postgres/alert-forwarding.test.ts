/**
 * A site's alerts on a central, on both engines (engines.ts; docs/fleet.md,
 * "Alerts"): a forwarded batch stores the alerts as sent and records each event
 * once under the site's message id (a resent batch records nothing), the site's
 * position is the last event applied, and a request waits for the site until the
 * alert's forwarded status answers it. An alert remembers the register the site
 * names when it is one of the alert's gateway's; an older site names none.
 */
import { beforeAll, expect, test } from "bun:test";
import type { ForwardedAlert, ForwardedAlertEvent } from "../../../src/store/contract/alerts.ts";
import { describeOnBothEngines, type OpenDomains } from "./engines.ts";
import { ids } from "./inventory-fixture.ts";

const t0 = Date.UTC(2026, 5, 1);
const gatewayUuid = "20000000-0000-4000-8000-000000000001";
const deviceUuid = "20000000-0000-4000-8000-000000000002";
const registerUuid = "20000000-0000-4000-8000-000000000003";
const alertUuid = (n: number) => `20000000-0000-4000-8000-${(0x100 + n).toString(16).padStart(12, "0")}`;

function siteGateway() {
  return {
    id: gatewayUuid,
    serial: "NORTH-1",
    name: "North",
    customer: null,
    heartbeatMs: 60_000,
    firmwareVer: null,
    ipEth: null,
    ipWifi: null,
    ip4g: null,
    signal4g: null,
    modbusDevices: [
      {
        id: deviceUuid,
        name: "boiler",
        slaveId: 1,
        protocol: "tcp" as const,
        ipAddress: "10.0.0.9",
        port: 502,
        pollIntervalMs: 1000,
        template: null,
        registers: [
          {
            id: registerUuid,
            name: "flow_temp",
            address: 100,
            functionCode: 3,
            dataType: "uint16",
            unit: "°C",
            scaleFactor: null,
            isWritable: false,
            writeMin: null,
            writeMax: null,
            description: null,
          },
        ],
      },
    ],
  };
}

describeOnBothEngines("a site's alerts on a central", t0, (opened) => {
  let store: OpenDomains;
  let orgId = -1;
  let gatewayId = -1;
  beforeAll(async () => {
    store = opened();
    orgId = (await store.organizations.findByKey("acme"))?.id ?? -1;
    await store.inventory.syncSite({ orgId, name: "north" }, [siteGateway()], t0);
    gatewayId = (await store.gateways.locate(orgId, gatewayUuid)) ?? -1;
  });
  const alert = (n: number, status: ForwardedAlert["status"], extra: Partial<ForwardedAlert> = {}): ForwardedAlert => ({
    uuid: alertUuid(n),
    gatewayId,
    gatewayUuid,
    registerUuid,
    ruleId: "30000000-0000-4000-8000-000000000001",
    severity: "warning",
    message: "r0 above 50: 100",
    status,
    value: 100,
    createdAt: t0,
    lastTriggeredAt: t0,
    returnedAt: null,
    ackAt: null,
    ackNote: null,
    resolvedAt: null,
    resolveNote: null,
    entryCount: 1,
    ...extra,
  });
  const messageIds = async () =>
    (await store.query("SELECT message_id FROM events ORDER BY id")).map((row) => row.message_id);
  const event = (seq: number, n: number, type: ForwardedAlertEvent["type"]): ForwardedAlertEvent => ({
    seq,
    alertUuid: alertUuid(n),
    messageId: `msg_site${seq.toString().padStart(4, "0")}`,
    type,
    occurredAt: t0 + seq,
    data: { alert_id: alertUuid(n), status: type.slice("alert.".length) },
  });

  test("a batch stores the alerts as sent and each event once, under the site's message id", async () => {
    expect(await store.alerts.forwardedPosition(orgId, "north")).toBe(0);
    const batch = { orgId, alerts: [alert(1, "active")], events: [event(7, 1, "alert.triggered")] };
    expect(await store.alerts.applyForwarded(batch, t0)).toBe(1);
    // Resent after a lost answer: nothing recorded twice.
    expect(await store.alerts.applyForwarded(batch, t0)).toBe(0);
    expect(await messageIds()).toEqual(["msg_site0007"]);
    expect(await store.alerts.forwardedPosition(orgId, "north")).toBe(7);
    expect(await store.alerts.byUuids([alertUuid(1)])).toEqual([
      {
        uuid: alertUuid(1),
        gatewayUuid,
        registerUuid,
        ruleId: "30000000-0000-4000-8000-000000000001",
        severity: "warning",
        message: "r0 above 50: 100",
        status: "active",
        value: 100,
        createdAt: t0,
        lastTriggeredAt: t0,
        returnedAt: null,
        ackAt: null,
        ackNote: null,
        resolvedAt: null,
        resolveNote: null,
        entryCount: 1,
      },
    ]);
    const found = await store.alerts.find(alertUuid(1));
    expect(found).toMatchObject({
      edgeSite: "north",
      modbusDeviceUuid: deviceUuid,
      modbusDeviceName: "boiler",
      registerUuid,
      registerName: "flow_temp",
      registerUnit: "°C",
    });
  });

  test("a register that is not one of the alert's gateway's is not stored; a state naming none (an older site) keeps the one known", async () => {
    const named = async (n: number, register: string | null) => {
      await store.alerts.applyForwarded(
        { orgId, alerts: [alert(n, "active", { registerUuid: register })], events: [] },
        t0,
      );
      return (await store.alerts.byUuids([alertUuid(n)]))[0]?.registerUuid;
    };
    // ids.register(1) is a register of another gateway (the fixture's gateway A).
    expect(await named(2, ids.register(1))).toBeNull();
    expect(await named(3, null)).toBeNull();
    // A later state that names the register: the alert remembers it from then on, also through a state naming none.
    expect(await named(3, registerUuid)).toBe(registerUuid);
    expect(await named(3, null)).toBe(registerUuid);
    expect(await store.alerts.find(alertUuid(3))).toMatchObject({
      registerName: "flow_temp",
      modbusDeviceName: "boiler",
    });
  });

  test("a request waits for the site until the alert's forwarded status answers it", async () => {
    const found = await store.alerts.find(alertUuid(1));
    if (found === null) throw new Error("alert missing");
    await store.alerts.request(found.id, { action: "acknowledge", note: "from the central", at: t0 + 50 });
    expect(await store.alerts.requestsOfSite(orgId, "north")).toEqual([
      { alertUuid: alertUuid(1), action: "acknowledge", note: "from the central", at: t0 + 50 },
    ]);
    expect((await store.alerts.find(alertUuid(1)))?.requestedAction).toBe("acknowledge");
    // A newer state that does not answer it (returned) keeps it waiting.
    const returned = alert(1, "returned", { returnedAt: t0 + 60 });
    await store.alerts.applyForwarded({ orgId, alerts: [returned], events: [event(8, 1, "alert.returned")] }, t0);
    expect(await store.alerts.requestsOfSite(orgId, "north")).toHaveLength(1);
    const acknowledged = alert(1, "acknowledged", {
      returnedAt: t0 + 60,
      ackAt: t0 + 70,
      ackNote: "from the central",
    });
    await store.alerts.applyForwarded(
      { orgId, alerts: [acknowledged], events: [event(9, 1, "alert.acknowledged")] },
      t0,
    );
    expect(await store.alerts.requestsOfSite(orgId, "north")).toEqual([]);
    expect(await store.alerts.forwardedPosition(orgId, "north")).toBe(9);
    const [row] = await store.alerts.byUuids([alertUuid(1)]);
    expect(row).toMatchObject({ status: "acknowledged", ackNote: "from the central", returnedAt: t0 + 60 });
    expect(await messageIds()).toEqual(["msg_site0007", "msg_site0008", "msg_site0009"]);
  });
});
