/**
 * A site's `modbus_device.offline` / `online` on its central (docs/fleet.md,
 * "Forwarding", step 4; docs/webhooks.md), on real processes, with a SQLite and with
 * a PostgreSQL central: a site `fieldhub serve` polls one gateway with two devices,
 * each on its own pymodbus peer, and forwards each second to a central `fieldhub
 * serve` whose endpoint is a receiver that verifies every delivery with
 * `standardwebhooks`. The pump's peer is stopped: the central's receiver gets
 * `modbus_device.offline` naming gateway and device, once, with the site's health
 * and error; the peer started again: `modbus_device.online`. A status naming a
 * device that is not the gateway's is refused (409) and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stableUuid } from "../../src/lib/ids.ts";
import { startModbusPeer } from "../faults/harness/modbus-peer.ts";
import { eventually } from "../faults/harness/serve.ts";
import { startVerifyingReceiver } from "../faults/harness/webhook-receivers.ts";
import type { RunningCli } from "../harness/cli.ts";
import { type PrivatePostgres, startPostgres } from "../harness/postgres.ts";
import { getData } from "../harness/served-api.ts";
import { centralSkipReason, cli, startCentralAndSite } from "./harness.ts";

const gatewayId = stableUuid("gateway", "FLEET-TWO");
const pumpId = stableUuid("modbus-device", "FLEET-TWO", "pump");
const heartbeatS = 5;

function device(name: string, port: number) {
  return `
      - name: ${name}
        slave_id: 1
        host: 127.0.0.1
        port: ${port}
        poll_interval_ms: 200
        timeout_ms: 300
        retries: 0
        registers:
          - { name: ${name}_r0, address: 0, data_type: int16 }`;
}

for (const engine of ["SQLite", "PostgreSQL"] as const) {
  let workDir = "";
  let central: RunningCli | undefined;
  let site: RunningCli | undefined;
  let pg: PrivatePostgres | undefined;
  let centralUrl = "";
  let centralKey = "";
  const receiver = startVerifyingReceiver();
  const peers: Awaited<ReturnType<typeof startModbusPeer>>[] = [];
  const arrivalsOf = (type: string) => receiver.arrivals.filter((arrival) => arrival.type === type);

  const skipReason = centralSkipReason(engine);
  describe.skipIf(skipReason !== null)(
    `a site's Modbus device events on its ${engine} central${skipReason === null ? "" : ` (${skipReason})`}`,
    () => {
      beforeAll(async () => {
        workDir = mkdtempSync(join(tmpdir(), "fieldhub-fleet-device-events-"));
        const [boiler, pump] = await Promise.all([startModbusPeer(), startModbusPeer()]);
        if (boiler === undefined || pump === undefined) throw new Error("peers missing");
        peers.push(boiler, pump);
        if (engine === "PostgreSQL") pg = await startPostgres();
        const centralEnv: Record<string, string> =
          pg === undefined ? {} : { FIELDHUB_DATABASE_URL: await pg.database("central") };
        const started = await startCentralAndSite(
          workDir,
          `gateways:
  - serial: FLEET-TWO
    name: Plant room
    heartbeat_s: ${heartbeatS}
    bus: { type: tcp, reconnect_max_s: 1 }
    devices:${device("boiler", boiler.port)}${device("pump", pump.port)}
`,
          centralEnv,
        );
        central = started.central;
        site = started.site;
        const args = ["endpoints", "create", "--data", join(workDir, "central"), "--org", "acme"];
        const events = "modbus_device.offline,modbus_device.online";
        const endpoint = JSON.parse(
          await cli([...args, "--url", receiver.url, "--events", events, "--json"], centralEnv),
        ) as { secret: string };
        receiver.useSecret(endpoint.secret);
        // The gateway forwarded online on the central before the pump is stopped.
        const { url, key } = started.sides.central;
        centralUrl = url;
        centralKey = key;
        await eventually(
          () => getData<{ status: string }>(url, key, `/v1/devices/${gatewayId}`).catch(() => null),
          (gateway) => gateway?.status === "online",
          20_000,
          50,
        );
      }, 60_000);

      afterAll(async () => {
        await site?.stop();
        await central?.stop();
        for (const peer of peers) peer.kill();
        await pg?.stop();
        receiver.stop();
        if (workDir !== "") rmSync(workDir, { recursive: true, force: true });
      });

      test("the pump's peer stops: the central delivers modbus_device.offline, then modbus_device.online once it is back", async () => {
        const pump = peers[1];
        if (pump === undefined) throw new Error("no pump peer");
        await pump.stop();
        const [offline] = await eventually(
          () => arrivalsOf("modbus_device.offline"),
          (arrivals) => arrivals.length > 0,
          (heartbeatS + 15) * 1000,
          50,
        );
        expect(offline?.data).toMatchObject({
          device_id: gatewayId,
          serial: "FLEET-TWO",
          device_name: "Plant room",
          modbus_device_id: pumpId,
          modbus_device_name: "pump",
          status: "offline",
          previous_health: "ok",
          last_error: expect.any(String),
          last_answer_at: expect.any(String),
        });
        expect(["unreachable", "quarantined"]).toContain(offline?.data.health as string);

        await pump.restart();
        const [online] = await eventually(
          () => arrivalsOf("modbus_device.online"),
          (arrivals) => arrivals.length > 0,
          20_000,
          50,
        );
        expect(online?.data).toMatchObject({
          device_id: gatewayId,
          serial: "FLEET-TWO",
          modbus_device_id: pumpId,
          modbus_device_name: "pump",
          status: "online",
          health: "ok",
        });
        expect(["unreachable", "quarantined"]).toContain(online?.data.previous_health as string);
        // A device that is not one of the gateway's refuses the whole status (409), nothing recorded.
        const token = /token: ([^,\s]+)/.exec(readFileSync(join(workDir, "site.yaml"), "utf8"))?.[1] ?? "";
        const otherDevice = stableUuid("modbus-device", "OTHER", "meter");
        const refused = await fetch(`${centralUrl}/edge/v1/status`, {
          method: "PUT",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({
            gateways: [
              {
                id: gatewayId,
                status: "offline",
                last_seen: null,
                modbus_devices: [
                  {
                    id: otherDevice,
                    status: "offline",
                    changed_at: null,
                    health: "unreachable",
                    previous_health: "ok",
                    last_error: null,
                    last_answer_at: null,
                  },
                ],
              },
            ],
          }),
        });
        expect(refused.status).toBe(409);
        expect(((await refused.json()) as { code: string }).code).toBe("conflict");
        const gateway = await getData<{ status: string }>(centralUrl, centralKey, `/v1/devices/${gatewayId}`);
        expect(gateway.status).toBe("online");
        // Each once, every delivery signed with the central endpoint's secret.
        expect(arrivalsOf("modbus_device.offline")).toHaveLength(1);
        expect(arrivalsOf("modbus_device.online")).toHaveLength(1);
        expect(receiver.invalid()).toBe(0);
      }, 60_000);
    },
  );
}
