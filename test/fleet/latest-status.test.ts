/**
 * `latest_status` of a site's register on a central (docs/api.md section 2.7,
 * docs/fleet.md "Forwarding"), on real processes: a site `fieldhub serve` polls a
 * pymodbus peer every 200 ms and stores one reading a minute, forwarding each round
 * (`check_interval_s: 1`) to a central `fieldhub serve` whose wall clock the test
 * steps (libfaketime; the config's shortest storage interval is 60 s). The central
 * judges by the cadence it receives: `ok` while the site forwards, even 50 s after the
 * last reading (25 times the poll interval's rule of 2 x 200 ms); once the site stops,
 * `stale` when more than the storage interval plus the forwarding allowance has passed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stableUuid } from "../../src/lib/ids.ts";
import { faketimeSkipReason, hasFaketime, steppableClock } from "../faults/harness/clock.ts";
import { hasPymodbus } from "../faults/harness/modbus-peer.ts";
import type { RunningCli } from "../harness/cli.ts";
import { type PymodbusPeer, startPymodbusPeer } from "../harness/pymodbus.ts";
import { eventually, getData } from "../harness/served-api.ts";
import { type ServedSide, startCentralAndSite } from "./harness.ts";

type Register = { name: string; latest_ts: string | null; latest_status: string };

const gatewayId = stableUuid("gateway", "CADENCE-1");
let workDir = "";
let peer: PymodbusPeer | undefined;
let central: RunningCli | undefined;
let site: RunningCli | undefined;
let clock: ReturnType<typeof steppableClock> | undefined;
let sides: Record<"site" | "central", ServedSide> = { site: { url: "", key: "" }, central: { url: "", key: "" } };

async function flowOn(side: "site" | "central"): Promise<Register | null> {
  const { url, key } = sides[side];
  const registers = await getData<Register[]>(url, key, `/v1/devices/${gatewayId}/registers`);
  return registers.find((register) => register.name === "flow") ?? null;
}

describe.skipIf(!hasPymodbus || !hasFaketime)(
  `latest_status of a forwarded register on a central (needs python3-pymodbus; ${faketimeSkipReason})`,
  () => {
    beforeAll(async () => {
      workDir = mkdtempSync(join(tmpdir(), "fieldhub-central-status-"));
      peer = await startPymodbusPeer({
        tcp_port: 0,
        serial: null,
        units: { "1": { hr: [{ address: 1, type: "uint16", value: 452 }] } },
      });
      clock = steppableClock(workDir);
      const started = await startCentralAndSite(
        workDir,
        `gateways:
  - serial: CADENCE-1
    name: Boiler room
    storage_interval_s: 60
    bus: { type: tcp }
    devices:
      - name: meter
        slave_id: 1
        host: 127.0.0.1
        port: ${peer.port}
        poll_interval_ms: 200
        timeout_ms: 500
        registers:
          - { name: flow, address: 1, data_type: uint16, unit: l/min, scale_factor: 0.1 }
`,
        clock.env,
      );
      central = started.central;
      site = started.site;
      sides = started.sides;
    }, 60_000);

    afterAll(async () => {
      await site?.stop();
      await central?.stop();
      peer?.proc.kill();
      if (workDir !== "") rmSync(workDir, { recursive: true, force: true });
    });

    test("ok on the central while the site forwards, between its storage periods; stale once it stops", async () => {
      const onSite = await eventually(
        () => flowOn("site").catch(() => null),
        (flow) => flow?.latest_status === "ok",
        30_000,
      );
      expect(onSite?.latest_status).toBe("ok");
      const received = await eventually(
        () => flowOn("central").catch(() => null),
        (flow) => flow?.latest_ts !== null && flow?.latest_ts !== undefined,
        30_000,
      );
      expect(received?.latest_status).toBe("ok");

      // 50 s on the central's clock since the reading it has: within 60 s + the allowance.
      const receivedTs = Date.parse(received?.latest_ts ?? "");
      clock?.step(`+${Math.round((receivedTs + 50_000 - Date.now()) / 1000)}`);
      const between = await flowOn("central");
      expect(between?.latest_ts).toBe(received?.latest_ts ?? null);
      expect(between?.latest_status).toBe("ok");

      // The site stops forwarding: past 60 s + 60 s since its last reading, the central says stale.
      await site?.stop();
      const lastTs = Date.parse((await flowOn("central"))?.latest_ts ?? "");
      clock?.step(`+${Math.round((lastTs + 125_000 - Date.now()) / 1000)}`);
      const stopped = await flowOn("central");
      expect(stopped?.latest_ts).toBe(new Date(lastTs).toISOString());
      expect(stopped?.latest_status).toBe("stale");
    }, 90_000);
  },
);
