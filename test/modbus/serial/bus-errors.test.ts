/**
 * CRC and framing errors counted per device on a real RTU line (docs/polling.md, "Bus
 * diagnostics"): the poller on fieldhub's serial port over a socat pty pair, and a
 * scripted device (fixtures/scripted_peer.py, plain Python) that answers one request
 * with a bad CRC and another with a frame cut short. Each broken answer is counted as
 * what it is, retried, and the retry reads the value.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { systemClock } from "../../../src/lib/clock.ts";
import type { DeviceBusCounts } from "../../../src/lib/device-health.ts";
import { silentLogger } from "../../../src/lib/logger.ts";
import type { PolledValue } from "../../../src/lib/polled-value.ts";
import { startGatewayPoller } from "../../../src/modbus/poller.ts";
import type { PollingGateway } from "../../../src/modbus/polling-config.ts";
import { missingPeers, Peers } from "./peers.ts";

const peers = new Peers();
afterAll(() => peers.stopAll());
const missing = missingPeers();

describe("a broken answer on an RTU line", () => {
  test.skipIf(missing !== undefined)(
    `a bad CRC and a frame cut short count as a CRC and a framing error of the device, and are retried${missing ? ` (skipped: ${missing})` : ""}`,
    async () => {
      const pair = await peers.ptyPair("diagnostics");
      const steps = ["valid", "badcrc", "valid", "partial", "valid"];
      const peer = await peers.scriptedPeer(pair.b, steps);
      const gateway: PollingGateway = {
        id: "gw",
        serial: "GW-RTU-ERRORS",
        bus: { type: "rtu", path: pair.a, baud: 19200, dataBits: 8, parity: "none", stopBits: 1 },
        heartbeatMs: 60_000,
        devices: [
          {
            id: "meter",
            name: "meter",
            slaveId: 1,
            host: null,
            port: null,
            pollIntervalMs: 200,
            timeoutMs: 400,
            retries: 1,
            maxRegistersPerRequest: 125,
            maxGap: 8,
            pauseMs: 0,
            storageIntervalMs: 60_000,
            registers: [
              {
                id: "r10",
                address: 10,
                functionCode: 3,
                dataType: "uint16",
                byteOrder: "ABCD",
                bit: null,
                length: null,
              },
            ],
          },
        ],
      };
      const values: PolledValue[] = [];
      // The counters as the third value arrives: the script is over, and the next cycle's request (which the
      // script leaves unanswered) has not come back yet.
      let countersThen: DeviceBusCounts | undefined;
      const sink = {
        readings: (_: string, read: PolledValue[]) => {
          values.push(...read);
          if (values.length === 3) countersThen = poller.health.device("meter").counters;
        },
        answered: () => {},
        unreachable: () => {},
      };
      const poller = startGatewayPoller({ gateway, sink, clock: systemClock, logger: silentLogger() });
      try {
        await peer.waitForLine((line) => line.startsWith("REQUEST valid") && peer.lines.length >= 6, 10_000);
        // The last answer is on its way; let the poller take it in.
        const deadline = Date.now() + 3000;
        while (values.length < 3 && Date.now() < deadline) await Bun.sleep(20);
      } finally {
        await poller.stop();
      }
      const requests = peer.lines.filter((line) => line.startsWith("REQUEST ")).map((line) => line.split(" ")[1]);
      expect(requests).toEqual(steps);
      const counters = countersThen;
      expect(counters).toMatchObject({ requests: 5, crcErrors: 1, framingErrors: 1, timeouts: 0, retries: 2 });
      expect(counters?.exceptions).toEqual({});
      // Every cycle read the value in the end: the retries got it; nothing broken passed as data.
      expect(values.map((value) => value.raw)).toEqual([1070, 1070, 1070]);
      await peer.stop();
      await pair.socat.stop();
    },
    30_000,
  );
});
