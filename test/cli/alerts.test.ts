/** `fieldhub alerts list|ack|resolve` on the data directory of a running API (docs/alerts.md). */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { runCli } from "../harness/cli.ts";
import { call } from "../harness/http.ts";
import { ids, startTestSite, type TestSite } from "../harness/site.ts";

let site: TestSite;
const alertId = "6f1d3c1e-0a4b-4c7e-9d2f-1b2c3d4e5f60";

beforeAll(async () => {
  site = await startTestSite();
  const at = site.clock.now() - 60_000;
  await site.addAlert({
    org: "acme",
    gatewaySerial: "ACME-1",
    uuid: alertId,
    ruleId: null,
    severity: "critical",
    message: "Air temperature above 30 °C: 31 °C",
    status: "active",
    value: 31,
    createdAt: at,
    lastTriggeredAt: at,
    entryCount: 1,
  });
});
afterAll(async () => {
  await site.stop();
});

test("list shows the organisation's alerts", async () => {
  const result = await runCli(["alerts", "list", "--data", site.dataDir, "--org", "acme", "--json"]);
  expect(result.code).toBe(0);
  const alerts = JSON.parse(result.stdout) as { id: string; status: string; device_id: string }[];
  expect(alerts).toContainEqual(
    expect.objectContaining({ id: alertId, status: "active", device_id: ids.acmeGateway1 }),
  );
  expect((await runCli(["alerts", "list", "--data", site.dataDir, "--org", "globex", "--json"])).stdout).toBe("[]\n");
});

test("ack and resolve change the alert (seen through the API) and record their events; invalid ones are refused", async () => {
  const acked = await runCli(["alerts", "ack", "--data", site.dataDir, alertId, "--note", "Vent checked"]);
  expect(acked).toMatchObject({ code: 0, stdout: `alert ${alertId} acknowledged\n` });
  const again = await runCli(["alerts", "ack", "--data", site.dataDir, alertId]);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain("already acknowledged");

  const resolved = await runCli(["alerts", "resolve", "--data", site.dataDir, alertId, "--note", "Valve replaced"]);
  expect(resolved).toMatchObject({ code: 0, stdout: `alert ${alertId} resolved\n` });
  expect((await runCli(["alerts", "resolve", "--data", site.dataDir, alertId])).code).toBe(1);

  const response = await call<{ data: { id: string; status: string; ack_note: string; resolve_note: string }[] }>(
    site.baseUrl,
    `/v1/alerts?device_id=${ids.acmeGateway1}`,
    { key: site.keys.acme },
  );
  expect(response.body.data.find((alert) => alert.id === alertId)).toMatchObject({
    status: "resolved",
    ack_note: "Vent checked",
    resolve_note: "Valve replaced",
  });
  const events = (await site.store.events.listAfter(1)).filter((event) => event.data.alert_id === alertId);
  expect(events.map((event) => [event.type, event.data.note])).toEqual([
    ["alert.acknowledged", "Vent checked"],
    ["alert.resolved", "Valve replaced"],
  ]);
});

test("an unknown alert and a bad call are refused", async () => {
  const unknown = await runCli(["alerts", "resolve", "--data", site.dataDir, "00000000-0000-0000-0000-000000000000"]);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain("no alert");
  expect((await runCli(["alerts", "ack", "--data", site.dataDir])).code).toBe(2);
  expect((await runCli(["alerts", "list", "--data", site.dataDir, "--status", "open"])).code).toBe(2);
});
