/**
 * Sparkplug history after an outage (src/mqtt/sparkplug/history.ts) over a real
 * store: every reading of the window once, in time order per device, with its
 * time, `is_historical` and value in its datatype; the position moves only past
 * whole seconds confirmed, so a replay cut off after any page and started again
 * from the position it saved sends nothing twice and passes nothing over.
 */
import { afterAll, expect, test } from "bun:test";
import { parseConfig } from "../../src/config/index.ts";
import { type SparkplugDevice, sparkplugDevices } from "../../src/mqtt/sparkplug/devices.ts";
import { replayHistory } from "../../src/mqtt/sparkplug/history.ts";
import type { Metric } from "../../src/mqtt/sparkplug/payload.ts";
import { topicCatalogue } from "../../src/mqtt/topics.ts";
import { openStoreFile } from "../../src/store/index.ts";

const parsed = parseConfig(`
organizations: [{ key: site, name: Site }]
gateways:
  - serial: GW-1
    name: GW-1
    bus: { type: tcp }
    devices:
      - name: a
        slave_id: 1
        host: 127.0.0.1
        registers:
          - { name: t, address: 0, data_type: int16 }
          - { name: v, address: 1, data_type: int16, scale_factor: 0.1 }
      - name: b
        slave_id: 2
        host: 127.0.0.1
        registers:
          - { name: w, address: 0, data_type: uint32 }
          - { name: on, address: 0, function_code: 1, data_type: bool }
`);
if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
const { inventory } = parsed.config;
const store = openStoreFile(":memory:");
afterAll(() => store.close());

test("every reading of the window once, in order, and a replay cut after any page resumes without a gap or a repeat", async () => {
  await store.inventory.sync(inventory, Date.now());
  const catalogue = topicCatalogue(inventory, {
    topicPrefix: "fieldhub",
    deadbands: new Map(),
  } as unknown as Parameters<typeof topicCatalogue>[1]);
  const devices = sparkplugDevices(catalogue.registers);
  const metricOf = new Map<number, { device: SparkplugDevice; metric: SparkplugDevice["metrics"][number] }>();
  for (const { id, uuid } of await store.registers.allIds())
    for (const device of devices.values())
      for (const metric of device.metrics)
        if (metric.register.registerId === uuid) metricOf.set(id, { device, metric });
  // Ten seconds of readings of every register (-3 on the int16: two's complement back), one before and after the window.
  const t0 = Date.UTC(2026, 10, 26, 10, 0, 0);
  const rows = [];
  for (let second = -1; second <= 10; second++)
    for (const id of metricOf.keys()) rows.push({ registerId: id, ts: t0 + second * 1000, rawValue: second - 3 });
  await store.readings.record(rows);
  const inWindow = rows.filter((row) => row.ts > t0 - 1000 && row.ts <= t0 + 9000);

  const sent: { device: string; metric: Metric }[] = [];
  const replay = (since: number, stopAfterPages: number) => {
    let pages = 0;
    let through = since;
    return {
      run: replayHistory(
        {
          readings: store.readings,
          metricOf,
          born: () => true,
          publish: (device, metrics) => {
            for (const metric of metrics) sent.push({ device: device.name, metric });
          },
          confirm: async () => {
            pages += 1;
          },
          moved: (position) => {
            expect(position).toBeGreaterThanOrEqual(through);
            through = position;
          },
          goOn: () => pages < stopAfterPages,
          // Three rows a page: pages end inside a second (four registers a second).
          pageSize: 3,
        },
        since,
        t0 + 9000,
      ),
      through: () => through,
    };
  };
  // Cut after two pages, then again after three, then to the end: each from the position saved.
  let position = t0 - 1000;
  for (const stopAfter of [2, 3, Number.POSITIVE_INFINITY]) {
    const part = replay(position, stopAfter);
    await part.run;
    position = part.through();
    // A position never splits a second: every reading up to it has been sent.
    const sentUpTo = sent.filter(({ metric }) => (metric.timestamp ?? 0) <= position).length;
    expect(sentUpTo).toBe(inWindow.filter((row) => row.ts <= position).length);
  }
  expect(position).toBe(t0 + 9000);
  expect(sent.length).toBe(inWindow.length);
  const keys = sent.map(({ metric }) => `${metric.alias}@${metric.timestamp}`);
  expect(new Set(keys).size).toBe(keys.length);
  for (const name of ["GW-1:a", "GW-1:b"]) {
    const times = sent.filter((entry) => entry.device === name).map(({ metric }) => metric.timestamp ?? 0);
    expect(times).toEqual([...times].sort((x, y) => x - y));
  }
  expect(sent.every(({ metric }) => metric.is_historical === true && metric.name === undefined)).toBe(true);
  // Values in their datatype: int16 raw, scaled as Double, uint32 raw, bool as a boolean.
  const first = sent.filter(({ metric }) => metric.timestamp === t0);
  expect(first.map(({ metric }) => metric.value)).toEqual([
    { int_value: -3 },
    { double_value: -0.3 },
    { int_value: -3 },
    { boolean_value: true },
  ]);
});
