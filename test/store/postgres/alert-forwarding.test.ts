/**
 * A site's alerts on a central, on both engines (engines.ts; docs/fleet.md,
 * "Alerts"): a forwarded batch stores the alerts as sent and records each event
 * once under the site's message id (a resent batch records nothing), the site's
 * position is the last event applied, and a request waits for the site until the
 * alert's forwarded status answers it.
 */
import { beforeAll, expect, test } from "bun:test";
import type { ForwardedAlert, ForwardedAlertEvent } from "../../../src/store/contract/alerts.ts";
import { describeOnBothEngines, type OpenDomains } from "./engines.ts";

const t0 = Date.UTC(2026, 5, 1);
const gatewayUuid = "20000000-0000-4000-8000-000000000001";
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
    modbusDevices: [],
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
    expect(found?.edgeSite).toBe("north");
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
