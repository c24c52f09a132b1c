/**
 * When one Modbus device behind an online gateway is announced offline and online
 * (src/ingest/modbus-device-status.ts; docs/webhooks.md, "`modbus_device.offline` and
 * `modbus_device.online`"), checked through the event outbox and the alerts API, with
 * the offline detector's per-device alert (`offline_alerts.devices`).
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { createRulesEngine, type RulesEngine } from "../../src/alerting/engine.ts";
import { createModbusDeviceStatusTracker } from "../../src/ingest/modbus-device-status.ts";
import { type DeviceHealth, type DeviceHealthStatus, noBusCounts } from "../../src/lib/device-health.ts";
import { stableUuid } from "../../src/lib/ids.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import type { GatewayStatus } from "../../src/store/contract/gateways.ts";
import { call } from "../harness/http.ts";
import { ids, startTestSite, type TestSite } from "../harness/site.ts";

const climate = stableUuid("modbus-device", "ACME-1", "Climate computer");
const meter = stableUuid("modbus-device", "ACME-1", "Energy meter");
const heartbeatMs = 30_000;
const detectorId = stableUuid("rule", "offline-detector");

let site: TestSite;
let rules: RulesEngine;
let tracker: Awaited<ReturnType<typeof createModbusDeviceStatusTracker>>;
let gatewayStatus: GatewayStatus = "online";
/** The offline detector's writes the tracker started; each report waits for them. */
const detectorWrites: Promise<void>[] = [];

async function startTracker() {
  return createModbusDeviceStatusTracker({
    store: site.store,
    clock: site.clock,
    logger: silentLogger(),
    gateways: [
      {
        id: ids.acmeGateway1,
        heartbeatMs,
        devices: [
          { id: climate, name: "Climate computer" },
          { id: meter, name: "Energy meter" },
        ],
      },
    ],
    gatewayStatus: () => gatewayStatus,
    checkEveryMs: 3_600_000, // checked by hand
    onChange: (change, at) => detectorWrites.push(rules.modbusDeviceChanged(change, at)),
  });
}

beforeEach(async () => {
  site = await startTestSite();
  gatewayStatus = "online";
  rules = await createRulesEngine({
    store: site.store,
    clock: site.clock,
    logger: silentLogger(),
    rules: [],
    offlineDetector: { id: detectorId, name: "Gateway offline", enabled: true, severity: "critical", devices: true },
    // An automation on the detector runs for a Modbus device's offline alert too.
    automations: [
      {
        id: stableUuid("automation", "Page"),
        name: "Page",
        enabled: true,
        orgKey: "acme",
        trigger: { kind: "rule", ruleId: detectorId },
        actions: [{ type: "webhook" }],
      },
    ],
  });
  tracker = await startTracker();
});
afterEach(async () => {
  await tracker.stop();
  await site.stop();
});

function health(status: DeviceHealthStatus, lastError: string | null = null): DeviceHealth {
  return {
    status,
    lastAnswerAt: site.clock.now() - 4_000,
    lastError,
    lastErrorAt: lastError === null ? null : site.clock.now(),
    registersSetAside: 0,
    nextProbeAt: null,
    counters: noBusCounts,
  };
}
async function report(deviceId: string, status: DeviceHealthStatus, lastError: string | null = null) {
  tracker.healthChanged(deviceId, health(status, lastError));
  await tracker.check();
  await Promise.all(detectorWrites.splice(0));
}
async function deviceEvents() {
  return (await site.store.events.listAfter(1))
    .filter((event) => event.type.startsWith("modbus_device."))
    .map((event) => ({ type: event.type, data: event.data }));
}
async function openAlerts() {
  const listed = await call<{ data: { rule_id: string; status: string; message: string }[] }>(
    site.baseUrl,
    `/v1/alerts?device_id=${ids.acmeGateway1}`,
    { key: site.keys.acme },
  );
  return listed.body.data;
}

test("a quarantined device behind an online gateway whose other device answers is announced offline once, and online at its first answer", async () => {
  await report(climate, "ok");
  await report(meter, "ok");
  await report(meter, "unreachable", "timeout after 1000 ms at 4:52");
  expect(await deviceEvents()).toEqual([]);
  await report(meter, "quarantined", "timeout after 1000 ms at 4:52");
  await report(meter, "unreachable");
  await report(meter, "quarantined");
  const offline = {
    device_id: ids.acmeGateway1,
    serial: "ACME-1",
    device_name: "Greenhouse 1",
    modbus_device_id: meter,
    modbus_device_name: "Energy meter",
    status: "offline",
    health: "quarantined",
    previous_health: "ok",
    last_error: "timeout after 1000 ms at 4:52",
    last_answer_at: new Date(site.clock.now() - 4_000).toISOString(),
  };
  expect(await deviceEvents()).toEqual([{ type: "modbus_device.offline", data: offline }]);
  expect(tracker.isOffline(meter)).toBe(true);
  const meterRule = stableUuid("rule", detectorId, "modbus-device", meter);
  expect(await openAlerts()).toMatchObject([
    { rule_id: meterRule, status: "active", message: "Modbus device Energy meter on Greenhouse 1 does not answer" },
  ]);

  await report(meter, "degraded");
  await report(meter, "ok");
  expect((await deviceEvents()).slice(1)).toEqual([
    {
      type: "modbus_device.online",
      data: { ...offline, status: "online", health: "degraded", previous_health: "quarantined", last_error: null },
    },
  ]);
  expect(await openAlerts()).toMatchObject([{ rule_id: meterRule, status: "returned" }]);
  const alertEvents = (await site.store.events.listAfter(1)).filter((event) => event.type.startsWith("alert."));
  expect(alertEvents.map((event) => [event.type, event.data.modbus_device_id, event.data.register_id])).toEqual([
    ["alert.triggered", meter, null],
    ["alert.returned", meter, null],
  ]);
  const automations = (await site.store.events.listAfter(1)).filter((event) => event.type === "automation.triggered");
  expect(automations.map((event) => [event.data.rule_name, event.data.modbus_device_id])).toEqual([["Page", meter]]);
});

test("a device whose connection is down counts once it has been unreachable longer than the gateway's heartbeat", async () => {
  await report(climate, "ok");
  await report(meter, "unreachable", "connection refused");
  site.clock.advance(heartbeatMs - 1_000);
  await tracker.check();
  expect(await deviceEvents()).toEqual([]);
  site.clock.advance(2_000);
  await tracker.check();
  expect(await deviceEvents()).toMatchObject([
    { type: "modbus_device.offline", data: { health: "unreachable", previous_health: "unknown" } },
  ]);
});

test("no device event when no other device of the gateway answers, or when the gateway is not online", async () => {
  // A cut line: both silent. The gateway's device.offline tells it.
  await report(climate, "quarantined");
  await report(meter, "quarantined");
  expect(await deviceEvents()).toEqual([]);
  // The gateway offline: the climate computer answers its first cycle before the status changes.
  gatewayStatus = "offline";
  await report(climate, "ok");
  expect(await deviceEvents()).toEqual([]);
  // Online again, the meter still silent: now it is told.
  gatewayStatus = "online";
  await tracker.check();
  expect((await deviceEvents()).map((event) => event.type)).toEqual(["modbus_device.offline"]);
});

test("a restart does not announce a device that was already offline again, and announces its return", async () => {
  await report(climate, "ok");
  await report(meter, "quarantined", "timeout after 1000 ms at 4:52");
  expect((await deviceEvents()).map((event) => event.type)).toEqual(["modbus_device.offline"]);
  await tracker.stop();

  tracker = await startTracker();
  await report(climate, "ok");
  await report(meter, "unreachable");
  await report(meter, "quarantined");
  site.clock.advance(heartbeatMs * 2);
  await tracker.check();
  expect((await deviceEvents()).map((event) => event.type)).toEqual(["modbus_device.offline"]);
  await report(meter, "ok");
  expect(await deviceEvents()).toMatchObject([
    { type: "modbus_device.offline" },
    { type: "modbus_device.online", data: { health: "ok", previous_health: "quarantined" } },
  ]);
});
