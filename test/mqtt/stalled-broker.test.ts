/**
 * "Nothing about MQTT may slow polling or the API" (docs/mqtt.md, "The link"), on
 * a real `fieldhub serve` polling a pymodbus peer every 200 ms, against brokers
 * that take the TCP connection and then never answer:
 * - a black hole: reads every byte (the CONNECT included) and answers nothing, so
 *   the link stays `connecting` until MQTT.js's connect timeout;
 * - a stalled broker: answers CONNECT with CONNACK, then reads and drops every
 *   packet (no PUBACK, no PINGRESP), so values and events wait for acknowledgements
 *   that never come.
 * In both, the Modbus requests keep their pace, readings are stored, /v1 and
 * /healthz answer at once (200: a broker not answering is an outage, not a fault),
 * and SIGTERM ends the process cleanly without waiting for the broker.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hasPymodbus, peerSiteYaml, startModbusPeer } from "../faults/harness/modbus-peer.ts";
import { createKey, eventually, metricValue, type RunningServe, startServe } from "../faults/harness/serve.ts";

/** A TCP listener that reads everything; `connack` answers the first packet with CONNACK (accepted) and nothing after. */
function startSilentBroker(options: { connack: boolean }) {
  let bytes = 0;
  let connects = 0;
  const listener = Bun.listen<{ answered: boolean }>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        socket.data = { answered: false };
        connects++;
      },
      data(socket, chunk) {
        bytes += chunk.byteLength;
        // MQTT 3.1.1 section 3.2: CONNACK, session present 0, return code 0.
        if (options.connack && !socket.data.answered && chunk[0] === 0x10) {
          socket.data.answered = true;
          socket.write(new Uint8Array([0x20, 0x02, 0x00, 0x00]));
        }
      },
    },
  });
  return {
    url: `mqtt://127.0.0.1:${listener.port}`,
    bytes: () => bytes,
    connects: () => connects,
    stop: () => listener.stop(true),
  };
}

type Health = { status: string; mqtt?: { state: string } };

describe.skipIf(!hasPymodbus)(
  "a broker that never answers does not slow polling or the API (needs python3-pymodbus)",
  () => {
    let dir: string;
    let peer: Awaited<ReturnType<typeof startModbusPeer>>;
    const running: RunningServe[] = [];

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "fieldhub-mqtt-stalled-"));
      peer = await startModbusPeer();
    });

    afterAll(async () => {
      for (const serve of running) await serve.stop();
      await peer?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    /**
     * Over `ms`: the Modbus requests made (the poll's pace: two registers in one
     * request every 200 ms), and the slowest of /v1/devices and /healthz asked one
     * after the other.
     */
    async function measure(serve: RunningServe, key: string, ms: number) {
      const requestsBefore = await metricValue(serve.url, "fieldhub_modbus_requests_total");
      const storedBefore = await metricValue(serve.url, "fieldhub_ingest_readings_total");
      const until = Date.now() + ms;
      let slowest = 0;
      let answers = 0;
      const codes = new Set<number>();
      while (Date.now() < until) {
        for (const [path, headers] of [
          ["/v1/devices", { authorization: `Bearer ${key}` }],
          ["/healthz", {}],
        ] as const) {
          const began = performance.now();
          const response = await fetch(`${serve.url}${path}`, { headers });
          await response.arrayBuffer();
          slowest = Math.max(slowest, performance.now() - began);
          codes.add(response.status);
          answers++;
        }
        await Bun.sleep(50);
      }
      return {
        modbusRequests: (await metricValue(serve.url, "fieldhub_modbus_requests_total")) - requestsBefore,
        readings: (await metricValue(serve.url, "fieldhub_ingest_readings_total")) - storedBefore,
        slowestMs: Math.round(slowest),
        answers,
        codes: [...codes],
      };
    }

    for (const [name, connack, state] of [
      ["black hole (never a CONNACK)", false, "connecting"],
      ["stalled after CONNACK (no PUBACK, no PINGRESP)", true, "online"],
    ] as const) {
      test(`${name}: polling keeps its pace, the API answers at once`, async () => {
        const broker = startSilentBroker({ connack });
        try {
          const serve = await startServe({
            workDir: join(dir, connack ? "stalled" : "black-hole"),
            yaml: peerSiteYaml({
              serial: "GW-1",
              port: peer.port,
              before: `storage: { commit_interval_s: 1 }\nmqtt:\n  url: ${broker.url}\n  client_id: stalled-test\n`,
            }),
          });
          running.push(serve);
          const key = (await createKey(serve.dataDir, "site")).key;
          const health = await eventually(
            async () => (await (await fetch(`${serve.url}/healthz`)).json()) as Health,
            (body) => body.mqtt?.state === state && broker.bytes() > 0,
          );
          expect(health.status).toBe("ok");
          const seen = await measure(serve, key, 4_000);
          console.log(
            `${name}: ${JSON.stringify({ ...seen, brokerBytes: broker.bytes(), connects: broker.connects() })}`,
          );
          // Every 200 ms for 4 s is 20 requests; a busy shared machine may lose a few.
          expect(seen.modbusRequests).toBeGreaterThanOrEqual(12);
          expect(seen.readings).toBeGreaterThanOrEqual(24);
          expect(seen.codes).toEqual([200]);
          expect(seen.slowestMs).toBeLessThan(1_000);
          // The broker took what fieldhub sent (a CONNECT at least; with CONNACK, retained status and values too).
          expect(broker.bytes()).toBeGreaterThan(connack ? 100 : 10);
          // A clean stop does not wait for acknowledgements that never come (MQTT's own waits are bounded, 2 s each).
          const stopBegan = Date.now();
          serve.proc.kill("SIGTERM");
          const code = await Promise.race([serve.proc.exited, Bun.sleep(10_000).then(() => "still running")]);
          console.log(`${name}: SIGTERM to exit ${Date.now() - stopBegan} ms`);
          expect(code).toBe(0);
        } finally {
          broker.stop();
        }
      }, 40_000);
    }
  },
);
