/**
 * A site's alerts on its central (docs/fleet.md, "Alerts"), on real processes: a
 * central `fieldhub serve` and a site `fieldhub serve` polling a pymodbus peer,
 * each with a webhook endpoint of its own on receivers that verify every delivery
 * with `standardwebhooks`. The site evaluates its rules; the central shows its
 * alerts and carries their events in its own webhook stream under the site's
 * message ids. Through a link outage (the central killed with -9 while the site's
 * gateway goes offline and comes back and an alert is acknowledged on the site)
 * nothing is lost and nothing is sent twice; a resolve asked on the central is
 * applied by the site and comes back as the site's own event, naming the alert's
 * register.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { peerSiteYaml, startModbusPeer } from "../faults/harness/modbus-peer.ts";
import { createKey } from "../faults/harness/serve.ts";
import { startVerifyingReceiver } from "../faults/harness/webhook-receivers.ts";
import { freePort, type RunningCli, runCli, servedUrl, startCli } from "../harness/cli.ts";
import { type PrivatePostgres, startPostgres } from "../harness/postgres.ts";
import { centralSkipReason, centralYaml, cli, getJson, importSiteHistory, startCentral, until } from "./harness.ts";

type Receiver = ReturnType<typeof startVerifyingReceiver>;

/** The alert events a receiver got, in order of arrival. */
const alertDeliveries = (receiver: Receiver | undefined) =>
  (receiver?.arrivals ?? [])
    .filter((arrival) => arrival.type.startsWith("alert."))
    .map((arrival) => ({ id: arrival.id, type: arrival.type, alertId: String(arrival.data.alert_id) }));

interface AlertJson {
  id: string;
  device_id: string;
  rule_id: string;
  status: string;
  entry_count: number;
  ack_note: string | null;
  resolve_note: string | null;
  last_triggered_at: string | null;
  returned_at: string | null;
}

for (const engine of ["SQLite", "PostgreSQL"] as const) {
  let workDir: string;
  let centralPort: number;
  let central: RunningCli | undefined;
  let site: RunningCli | undefined;
  let siteUrl = "";
  let peer: Awaited<ReturnType<typeof startModbusPeer>> | undefined;
  const receivers: { central?: Receiver; site?: Receiver } = {};
  let centralKey = "";
  let siteKey = "";
  /** The site's alert of rule "r0 high" (r0 reads 100, above 50, from the start). */
  let ruleAlertId = "";
  let siteToken = "";

  const centralUrl = () => `http://127.0.0.1:${centralPort}`;

  async function addEndpoint(
    dataDir: string,
    org: string,
    receiver: Receiver,
    env: Record<string, string> = {},
  ): Promise<void> {
    const created = JSON.parse(
      await cli(["endpoints", "create", "--data", dataDir, "--org", org, "--url", receiver.url, "--json"], env),
    ) as { secret: string };
    receiver.useSecret(created.secret);
  }

  const alertsOf = async (base: string, key: string) =>
    (await getJson<{ data: AlertJson[] }>(base, key, "/v1/alerts?limit=100")).data;

  /** What both sides must agree on about an alert. */
  const lifecycle = (alert: AlertJson) => ({
    id: alert.id,
    device_id: alert.device_id,
    rule_id: alert.rule_id,
    status: alert.status,
    entry_count: alert.entry_count,
    ack_note: alert.ack_note,
    resolve_note: alert.resolve_note,
    last_triggered_at: alert.last_triggered_at,
    returned_at: alert.returned_at,
  });
  /** An alert as `POST /edge/v1/alerts` takes it, from what /v1 shows of it. */
  const forwardedAlertBody = (alert: AlertJson) => ({
    id: alert.id,
    device_id: alert.device_id,
    rule_id: alert.rule_id,
    severity: "warning",
    message: "r0 above 50",
    status: alert.status,
    value: null,
    created_at: Date.now(),
    last_triggered_at: null,
    returned_at: null,
    ack_at: null,
    ack_note: alert.ack_note,
    resolved_at: null,
    resolve_note: alert.resolve_note,
    entry_count: alert.entry_count,
  });
  const sorted = (alerts: AlertJson[]) => alerts.map(lifecycle).sort((a, b) => a.id.localeCompare(b.id));

  /** The central's store: its data directory, or a private PostgreSQL (FIELDHUB_DATABASE_URL for it and its CLI). */
  let pg: PrivatePostgres | undefined;
  let centralEnv: Record<string, string> = {};

  const skipReason = centralSkipReason(engine);
  describe.skipIf(skipReason !== null)(
    `a site's alerts on its central on ${engine}${skipReason === null ? "" : ` (${skipReason})`}`,
    () => {
      beforeAll(async () => {
        workDir = mkdtempSync(join(tmpdir(), "fieldhub-fleet-alerts-"));
        writeFileSync(join(workDir, "central.yaml"), centralYaml);
        centralPort = freePort();
        const centralDir = join(workDir, "central");
        if (engine === "PostgreSQL") {
          pg = await startPostgres();
          centralEnv = { FIELDHUB_DATABASE_URL: await pg.database("central") };
        }
        central = await startCentral(workDir, centralPort, centralEnv);
        receivers.central = startVerifyingReceiver();
        receivers.site = startVerifyingReceiver();
        await addEndpoint(centralDir, "acme", receivers.central, centralEnv);
        centralKey = (await createKey(centralDir, "acme", "devices:read,alerts:read", centralEnv)).key;

        peer = await startModbusPeer();
        const token = await cli(
          ["edges", "create", "--data", centralDir, "--org", "acme", "--name", "north"],
          centralEnv,
        );
        siteToken = token;
        const before = [
          `uplink: { url: "${centralUrl()}", token: ${token}, check_interval_s: 1 }`,
          "storage: { commit_interval_s: 1 }",
          "rules:",
          "  - { name: r0 high, gateway: NORTH-1, device: Meter, register: r0, condition: gt, threshold: 50 }",
          "",
        ].join("\n");
        const configPath = join(workDir, "north.yaml");
        writeFileSync(configPath, peerSiteYaml({ serial: "NORTH-1", port: peer.port, before }), { mode: 0o600 });
        const siteDir = join(workDir, "north");
        // The site's store made (a minute of history imported) and its endpoint added before it first
        // polls, so its receiver gets every alert event the site records.
        await importSiteHistory({
          workDir,
          dataDir: siteDir,
          configPath,
          serial: "NORTH-1",
          start: Date.now() - 3_600_000,
          minutes: 1,
          value: () => 1,
        });
        await addEndpoint(siteDir, "site", receivers.site);
        site = startCli(["serve", "--config", configPath, "--data", siteDir, "--host", "127.0.0.1", "--port", "0"]);
        siteUrl = await site.waitFor(servedUrl, 30_000);
        siteKey = (await createKey(siteDir, "site", "devices:read,alerts:read")).key;
      }, 90_000);

      afterAll(async () => {
        await site?.stop();
        await central?.stop();
        await peer?.stop();
        await pg?.stop();
        receivers.central?.stop();
        receivers.site?.stop();
        if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
      });

      test("the site's alert reaches the central with its own id, state and message id", async () => {
        const siteAlerts = await until(
          () => alertsOf(siteUrl, siteKey),
          (alerts) => alerts.length === 1,
          30_000,
        );
        const centralAlerts = await until(
          () => alertsOf(centralUrl(), centralKey),
          (alerts) => alerts.length === 1,
          30_000,
        );
        expect(sorted(centralAlerts)).toEqual(sorted(siteAlerts));
        expect(centralAlerts[0]?.status).toBe("active");
        ruleAlertId = centralAlerts[0]?.id ?? "";
        // The central's receiver gets the same alert.triggered, by the same webhook-id, as the site's.
        const sent = await until(
          async () => alertDeliveries(receivers.central),
          (deliveries) => deliveries.length === 1,
          15_000,
        );
        expect(sent[0]).toMatchObject({ type: "alert.triggered", alertId: siteAlerts[0]?.id });
        expect(sent.map((delivery) => delivery.id)).toEqual(
          alertDeliveries(receivers.site).map((delivery) => delivery.id),
        );
      }, 60_000);

      test("a link outage: the central killed (-9) while the site's alerts change; after it returns, each event once", async () => {
        central?.proc.kill("SIGKILL");
        await central?.proc.exited;
        // During the outage: the gateway goes offline (the detector's alert), comes back (returned), and the
        // r0 alert is acknowledged on the site.
        await peer?.stop();
        await until(
          () => alertsOf(siteUrl, siteKey),
          (alerts) => alerts.length === 2,
          30_000,
        );
        await peer?.restart();
        await until(
          () => alertsOf(siteUrl, siteKey),
          (alerts) => alerts.some((alert) => alert.status === "returned"),
          30_000,
        );
        await cli(["alerts", "ack", "--data", join(workDir, "north"), ruleAlertId, "--note", "on site"]);
        // On the site: r0's triggered, the detector's triggered and returned, r0's acknowledged.
        await until(
          async () => alertDeliveries(receivers.site),
          (deliveries) => deliveries.length === 4,
          15_000,
        );

        central = await startCentral(workDir, centralPort, centralEnv);
        const siteAlerts = await alertsOf(siteUrl, siteKey);
        await until(
          async () => sorted(await alertsOf(centralUrl(), centralKey)),
          (alerts) => JSON.stringify(alerts) === JSON.stringify(sorted(siteAlerts)),
          30_000,
        );
        // Every alert event the site recorded reaches the central's receiver once, under the site's message id.
        const siteIds = alertDeliveries(receivers.site).map((delivery) => delivery.id);
        const centralIds = await until(
          async () => alertDeliveries(receivers.central).map((delivery) => delivery.id),
          (ids) => ids.length >= siteIds.length,
          30_000,
        );
        await Bun.sleep(1_500);
        const settled = alertDeliveries(receivers.central).map((delivery) => delivery.id);
        expect(new Set(settled).size).toBe(settled.length);
        expect([...settled].sort()).toEqual([...siteIds].sort());
        expect(centralIds.length).toBe(siteIds.length);
        expect(receivers.central?.invalid()).toBe(0);
      }, 120_000);

      test("a batch resent after a lost answer records nothing and sends nothing again", async () => {
        const position = (await (
          await fetch(`${centralUrl()}/edge/v1/alerts`, { headers: { authorization: `Bearer ${siteToken}` } })
        ).json()) as { forwarded_through: number; requests: unknown[] };
        expect(position.forwarded_through).toBeGreaterThan(0);
        const [first] = alertDeliveries(receivers.site);
        const [alert] = (await alertsOf(centralUrl(), centralKey)).filter((row) => row.id === first?.alertId);
        if (first === undefined || alert === undefined) throw new Error("no forwarded alert");
        const before = receivers.central?.arrivals.length ?? 0;
        const response = await fetch(`${centralUrl()}/edge/v1/alerts`, {
          method: "POST",
          headers: { authorization: `Bearer ${siteToken}`, "content-type": "application/json" },
          body: JSON.stringify({
            alerts: [forwardedAlertBody(alert)],
            events: [
              { seq: 1, message_id: first.id, type: first.type, occurred_at: Date.now(), data: { alert_id: alert.id } },
            ],
          }),
        });
        expect(response.status).toBe(200);
        expect(((await response.json()) as { recorded: number }).recorded).toBe(0);
        await Bun.sleep(1_000);
        expect(receivers.central?.arrivals.length).toBe(before);
      }, 30_000);

      test("a resolve asked on the central is applied by the site and comes back as its event", async () => {
        const open = (await alertsOf(centralUrl(), centralKey)).find((alert) => alert.status === "acknowledged");
        if (open === undefined) throw new Error("no acknowledged alert on the central");
        const asked = await cli(
          ["alerts", "resolve", "--data", join(workDir, "central"), open.id, "--note", "closed from the central"],
          centralEnv,
        );
        expect(asked).toContain('asked of site "north"');
        const onSite = await until(
          async () => (await alertsOf(siteUrl, siteKey)).find((alert) => alert.id === open.id),
          (alert) => alert?.status === "resolved",
          30_000,
        );
        expect(onSite?.resolve_note).toBe("closed from the central");
        await until(
          async () => (await alertsOf(centralUrl(), centralKey)).find((alert) => alert.id === open.id),
          (alert) => alert?.status === "resolved" && alert.resolve_note === "closed from the central",
          30_000,
        );
        const resolvedAtSite = await until(
          async () => alertDeliveries(receivers.site).filter((delivery) => delivery.type === "alert.resolved"),
          (deliveries) => deliveries.length === 1,
          15_000,
        );
        const resolvedAtCentral = await until(
          async () => alertDeliveries(receivers.central).filter((delivery) => delivery.type === "alert.resolved"),
          (deliveries) => deliveries.length === 1,
          15_000,
        );
        expect(resolvedAtCentral[0]?.id).toBe(resolvedAtSite[0]?.id as string);
        // The resolved alert names the register its rule watches, on the central as on the site.
        const resolvedData = receivers.central?.arrivals.find((arrival) => arrival.type === "alert.resolved")?.data;
        expect(resolvedData).toMatchObject({
          alert_id: open.id,
          modbus_device_name: "Meter",
          register_name: "r0",
          unit: null,
        });
        expect(resolvedData?.register_id).toEqual(expect.any(String));
        // Resolved is final: asking again is refused on the central and changes nothing.
        const again = await runCli(
          ["alerts", "resolve", "--data", join(workDir, "central"), open.id],
          15_000,
          centralEnv,
        );
        expect(again.code).not.toBe(0);
        expect(again.stderr).toContain("already resolved");
      }, 90_000);

      test("a site cannot forward alerts onto another site's gateway", async () => {
        const other = await cli(
          ["edges", "create", "--data", join(workDir, "central"), "--org", "acme", "--name", "south"],
          centralEnv,
        );
        const [alert] = await alertsOf(centralUrl(), centralKey);
        if (alert === undefined) throw new Error("no alert");
        const response = await fetch(`${centralUrl()}/edge/v1/alerts`, {
          method: "POST",
          headers: { authorization: `Bearer ${other}`, "content-type": "application/json" },
          body: JSON.stringify({
            alerts: [{ ...forwardedAlertBody(alert), message: "taken over", status: "resolved", resolved_at: 1 }],
            events: [],
          }),
        });
        expect(response.status).toBe(409);
        expect(((await response.json()) as { code: string }).code).toBe("conflict");
        const after = (await alertsOf(centralUrl(), centralKey)).find((row) => row.id === alert.id);
        expect(after?.status).toBe(alert.status);
      }, 30_000);
    },
  );
}
