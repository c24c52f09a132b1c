/**
 * Per-period aggregates on a real process (docs/api.md section 4.6): `fieldhub serve`
 * polls Debian's pymodbus every 250 ms and stores one reading a minute; the
 * equipment's flow temperature rises from 45.2 to 60.0 °C for three seconds inside
 * one storage period. That period's reading, read through
 * GET /v1/devices/{id}/readings, keeps the value read when it was stored as its `value`,
 * and its `max` is the spike, its `min` the steady value, its `mean` between them
 * as the polls weigh it, its `samples` the polls of a minute.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stableUuid } from "../../src/lib/ids.ts";
import { type RunningCli, serveArgs, servedUrl, startCli } from "../harness/cli.ts";
import { type PymodbusPeer, startPymodbusPeer } from "../harness/pymodbus.ts";
import { createReadKey, eventually, getData } from "../harness/served-api.ts";

const canRun = existsSync("/usr/bin/python3");
const minute = 60_000;
const pollMs = 250;

let workDir = "";
let server: RunningCli | undefined;
let peer: PymodbusPeer | undefined;
let baseUrl = "";
let key = "";
const gatewayId = stableUuid("gateway", "AGG-TCP");

beforeAll(async () => {
  if (!canRun) return;
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-aggregates-"));
  peer = await startPymodbusPeer({
    tcp_port: 0,
    serial: null,
    units: { "1": { hr: [{ address: 0, type: "int16", value: 452 }] } },
  });
  writeFileSync(
    join(workDir, "fieldhub.yaml"),
    `
organizations: [{ key: plant, name: Plant }]
storage: { commit_interval_s: 1 }
gateways:
  - serial: AGG-TCP
    name: Boiler room
    bus: { type: tcp }
    storage_interval_s: 60
    devices:
      - name: Boiler
        slave_id: 1
        host: 127.0.0.1
        port: ${peer.port}
        poll_interval_ms: ${pollMs}
        timeout_ms: 500
        registers:
          - { name: flow_temperature, address: 0, data_type: int16, unit: "°C", scale_factor: 0.1 }
`,
  );
  const dataDir = join(workDir, "data");
  server = startCli(serveArgs(join(workDir, "fieldhub.yaml"), dataDir));
  baseUrl = await server.waitFor(servedUrl);
  key = await createReadKey(dataDir, "plant");
}, 30_000);

afterAll(async () => {
  await server?.stop();
  peer?.proc.kill();
  if (workDir !== "") rmSync(workDir, { recursive: true, force: true });
});

type ApiReading = {
  value: number | null;
  raw_value: number | null;
  ts: string;
  min: number | null;
  max: number | null;
  mean: number | null;
  samples: number | null;
  raw_min: number | null;
  raw_max: number | null;
};

test.skipIf(!canRun)(
  "a three-second spike inside a storage period is that period's max; value stays the stored reading (needs python3-pymodbus)",
  async () => {
    const ask = (peer as PymodbusPeer).ask;
    const readingsBetween = (since: number, until: number) =>
      getData<ApiReading[]>(
        baseUrl,
        key,
        `/v1/devices/${gatewayId}/readings?order=asc&since=${new Date(since).toISOString()}&until=${new Date(until).toISOString()}`,
      );
    // Stored readings are a storage interval apart from the first one (the density rule),
    // so each period's stored reading falls at about the same second of its minute: the
    // spike goes 15-20 s away from that second, never on the stored reading itself.
    const stored = await eventually(
      () => readingsBetween(Date.now() - 2 * minute, Date.now() + minute),
      (rows) => rows.length > 0,
      30_000,
    );
    const storedAt = Date.parse((stored.at(-1) as ApiReading).ts) % minute;
    const spikeAt = storedAt < 30_000 ? storedAt + 15_000 : storedAt - 20_000;
    // Into the next whole minute (a storage period of its own): the spike.
    const period = Math.ceil((Date.now() + 2_000) / minute) * minute;
    await Bun.sleep(period + spikeAt - Date.now());
    expect(await ask("SET 1 hr 0 600")).toBe("SET ok");
    await Bun.sleep(3_000);
    expect(await ask("SET 1 hr 0 452")).toBe("SET ok");
    // The period ends; its aggregate goes with the register's next stored reading (the
    // density rule may store it up to a period on, while a fresh start's readings drift
    // towards the period's start), committed within a second: asked until it is there.
    await Bun.sleep(period + minute + 2_000 - Date.now());
    const inPeriod = (row: ApiReading) => Date.parse(row.ts) >= period && Date.parse(row.ts) < period + minute;
    const rows = await eventually(
      () => readingsBetween(period - minute, period + 2 * minute),
      (read) => read.find(inPeriod)?.samples !== null,
      period + 2 * minute + 10_000 - Date.now(),
    );
    const spiked = rows.find(inPeriod);
    if (spiked === undefined) throw new Error(`no reading stored in the spike's period: ${JSON.stringify(rows)}`);
    // The stored value is the reading stored in the period, not the spike.
    expect(spiked.value).toBe(45.2);
    expect(spiked.raw_value).toBe(452);
    expect(spiked.max).toBe(60);
    expect(spiked.raw_max).toBe(600);
    expect(spiked.min).toBe(45.2);
    expect(spiked.raw_min).toBe(452);
    // A poll every 250 ms: about 240 a minute (a first poll a little late, a slow answer, fewer).
    const samples = spiked.samples as number;
    expect(samples).toBeGreaterThan(180);
    expect(samples).toBeLessThanOrEqual(241);
    // Three seconds at 60.0 among a minute at 45.2: about 12 of the polls at 250 ms,
    // fewer when a busy machine makes polls late; at least a couple always land in it.
    const spikePolls = Math.round((((spiked.mean as number) - 45.2) * samples) / (60 - 45.2));
    expect(spikePolls).toBeGreaterThanOrEqual(2);
    expect(spikePolls).toBeLessThanOrEqual(16);
    // The period in progress has its reading, its aggregate not yet (known once it ends).
    const current = rows.find((row) => Date.parse(row.ts) >= period + minute);
    expect(current?.value).toBe(45.2);
    expect(current?.samples).toBeNull();
  },
  250_000,
);
