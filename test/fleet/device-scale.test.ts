/**
 * A register scaled by its device (`scale_factor_register`, docs/polling.md "Scale
 * factors read from the device") seen on a central (docs/fleet.md, "Forwarding"), on
 * real processes: a site `fieldhub serve` polls a pymodbus peer whose register 1 is
 * scaled by register 2 (an exponent) and forwards to a central `fieldhub serve`. The
 * central's /v1 serves the register with the site's `scale_factor` and the same
 * `value`; when the device changes the exponent, the central follows.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stableUuid } from "../../src/lib/ids.ts";
import { hasPymodbus } from "../faults/harness/modbus-peer.ts";
import type { RunningCli } from "../harness/cli.ts";
import { type PymodbusPeer, startPymodbusPeer } from "../harness/pymodbus.ts";
import { eventually, getData } from "../harness/served-api.ts";
import { startCentralAndSite } from "./harness.ts";

type Register = { id: string; name: string; scale_factor: number | null; latest_value: number | null };
type Reading = { ts: string; raw_value: number | null; value: number | null };

const gatewayId = stableUuid("gateway", "SCALED-1");
let workDir = "";
let peer: PymodbusPeer | undefined;
let central: RunningCli | undefined;
let site: RunningCli | undefined;
const sides: { name: string; url: string; key: string }[] = [];

/** The `power` register as one side serves it, with its newest reading's value. */
async function powerOn(side: { url: string; key: string }) {
  const registers = await getData<Register[]>(side.url, side.key, `/v1/devices/${gatewayId}/registers`);
  const power = registers.find((register) => register.name === "power");
  if (power === undefined) return null;
  const readings = await getData<Reading[]>(
    side.url,
    side.key,
    `/v1/devices/${gatewayId}/readings?register_id=${power.id}&order=desc&limit=1`,
  );
  return { scaleFactor: power.scale_factor, latestValue: power.latest_value, readingValue: readings[0]?.value ?? null };
}

/** Waits until the site serves `power` at `expected` and the central serves it the same. */
async function untilBothServe(expected: { scaleFactor: number; value: number }) {
  for (const side of sides) {
    const served = await eventually(
      () => powerOn(side).catch(() => null),
      (power) => power?.scaleFactor === expected.scaleFactor && power.readingValue === expected.value,
      30_000,
    );
    expect({ side: side.name, ...served }).toEqual({
      side: side.name,
      scaleFactor: expected.scaleFactor,
      latestValue: expected.value,
      readingValue: expected.value,
    });
  }
}

describe.skipIf(!hasPymodbus)("a device-scaled register on a central (needs Debian's python3-pymodbus)", () => {
  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), "fieldhub-device-scale-"));
    peer = await startPymodbusPeer({
      tcp_port: 0,
      serial: null,
      units: {
        "1": {
          hr: [
            { address: 1, type: "uint16", value: 4321 },
            { address: 2, type: "int16", value: -2 },
          ],
        },
      },
    });
    const started = await startCentralAndSite(
      workDir,
      `gateways:
  - serial: SCALED-1
    name: Scaled meter gateway
    bus: { type: tcp }
    devices:
      - name: meter
        slave_id: 1
        host: 127.0.0.1
        port: ${peer.port}
        poll_interval_ms: 200
        timeout_ms: 500
        registers:
          - { name: power, address: 1, data_type: uint16, unit: kW, scale_factor_register: power_sf }
          - { name: power_sf, address: 2, data_type: int16 }
`,
    );
    central = started.central;
    site = started.site;
    sides.push({ name: "site", ...started.sides.site }, { name: "central", ...started.sides.central });
  }, 60_000);

  afterAll(async () => {
    await site?.stop();
    await central?.stop();
    peer?.proc.kill();
    if (workDir !== "") rmSync(workDir, { recursive: true, force: true });
  });

  test("the central serves the value the site does: raw x the factor read from the device, and follows its change", async () => {
    await untilBothServe({ scaleFactor: 0.01, value: 43.21 });
    // The device changes the exponent to -1 (0xFFFF): the site's inventory goes again with the new factor.
    expect(await peer?.ask("SET 1 hr 2 65535")).toBe("SET ok");
    await untilBothServe({ scaleFactor: 0.1, value: 432.1 });
  }, 90_000);
});
