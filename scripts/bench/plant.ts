/**
 * The benchmark plant: 2,000 registers (by default) of ten kinds on devices of 20
 * registers, ten devices a gateway, polled once a minute, with deterministic values
 * (seeded). Shared by the store benchmark and the InfluxDB comparison so both
 * measure the same readings.
 */
import { parseConfig } from "../../src/config/index.ts";
import type { Inventory } from "../../src/lib/inventory.ts";
import { seededRandom } from "../../test/harness/seeded-random.ts";

export const registersPerDevice = 20;
export const devicesPerGateway = 10;
export const intervalMs = 60_000;

// Ten kinds of register, repeating: what a plant's meters and controllers expose.
export const kinds = [
  { dataType: "int16", unit: "°C", scale: 0.1, words: 1 }, // 0 temperature x10, random walk
  { dataType: "int16", unit: "°C", scale: 0.1, words: 1 }, // 1 temperature x10
  { dataType: "int16", unit: "%", scale: 0.1, words: 1 }, // 2 humidity x10
  { dataType: "int16", unit: "°C", scale: 0.1, words: 1 }, // 3 temperature x10
  { dataType: "uint16", unit: null, scale: null, words: 1 }, // 4 status 0/1, rarely changes
  { dataType: "uint16", unit: "bar", scale: 0.01, words: 1 }, // 5 pressure x100
  { dataType: "float32", unit: "V", scale: null, words: 2 }, // 6 voltage, noisy
  { dataType: "float32", unit: "A", scale: null, words: 2 }, // 7 current, noisy random walk
  { dataType: "float32", unit: "°C", scale: null, words: 2 }, // 8 setpoint, rarely changes
  { dataType: "uint32", unit: "Wh", scale: null, words: 2 }, // 9 energy counter
] as const;
export const kindOf = (index: number) => index % kinds.length;

/** The plant as a fieldhub inventory (registers `r<index>`). */
export function plantInventory(registerCount: number): Inventory {
  const deviceCount = registerCount / registersPerDevice;
  const gatewayCount = Math.ceil(deviceCount / devicesPerGateway);
  const lines = ["organizations: [{ key: bench, name: Bench }]", "gateways:"];
  for (let gateway = 0; gateway < gatewayCount; gateway++) {
    lines.push(
      `  - serial: BENCH-${gateway}`,
      `    name: Bench gateway ${gateway}`,
      "    bus: { type: tcp }",
      "    devices:",
    );
    for (let slot = 0; slot < devicesPerGateway; slot++) {
      const device = gateway * devicesPerGateway + slot;
      if (device >= deviceCount) break;
      lines.push(
        `      - name: Device ${device}`,
        `        slave_id: ${slot + 1}`,
        "        host: 127.0.0.1",
        "        registers:",
      );
      let address = 0;
      for (let offset = 0; offset < registersPerDevice; offset++) {
        const index = device * registersPerDevice + offset;
        const kind = kinds[kindOf(index)] as (typeof kinds)[number];
        const extra = `${kind.unit === null ? "" : `, unit: "${kind.unit}"`}${kind.scale === null ? "" : `, scale_factor: ${kind.scale}`}`;
        lines.push(
          `          - { name: r${index}, address: ${address}, function_code: 3, data_type: ${kind.dataType}${extra} }`,
        );
        address += kind.words;
      }
    }
  }
  const parsed = parseConfig(lines.join("\n"));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.config.inventory;
}

/**
 * Deterministic readings, one poll round (one minute) at a time: integer registers
 * move as random walks (often repeating), float32 registers carry noise, a status
 * and a setpoint rarely change, counters only grow. Each device is read at its own
 * moment within the minute (with some jitter), all its registers with the same ts.
 */
export function createSource(seed: number, registerCount: number, start: number) {
  const deviceCount = registerCount / registersPerDevice;
  const random = seededRandom(seed);
  const state = new Float64Array(registerCount);
  for (let index = 0; index < registerCount; index++) {
    const draw = random();
    const initial = [
      150 + Math.floor(draw * 150),
      150 + Math.floor(draw * 150),
      400 + Math.floor(draw * 300),
      150 + Math.floor(draw * 150),
      draw < 0.8 ? 1 : 0,
      200 + Math.floor(draw * 300),
      Math.fround(230 + (draw - 0.5) * 4),
      Math.fround(5 + draw * 20),
      Math.fround(18 + Math.floor(draw * 80) / 10),
      Math.floor(draw * 5_000_000),
    ][kindOf(index)] as number;
    state[index] = initial;
  }
  const step = (index: number, value: number): number => {
    const draw = random();
    switch (kindOf(index)) {
      case 0:
      case 1:
      case 3:
        return draw < 0.15 ? value - 1 : draw < 0.3 ? value + 1 : value;
      case 2:
        return draw < 0.1
          ? value - 1 - Math.floor(random() * 3)
          : draw < 0.2
            ? value + 1 + Math.floor(random() * 3)
            : value;
      case 4:
        return draw < 0.002 ? 1 - value : value;
      case 5:
        return draw < 0.5 ? Math.max(0, value + Math.floor(random() * 7) - 3) : value;
      case 6:
        return Math.fround(230 + (draw - 0.5) * 4);
      case 7:
        return Math.fround(Math.abs(value + (draw - 0.5) * 0.5));
      case 8:
        return draw < 0.001 ? Math.fround(18 + Math.floor(random() * 80) / 10) : value;
      default:
        return value + Math.floor(draw * 40);
    }
  };
  return {
    /** Fills the values of every register and each device's read time for minute `minute`. */
    round(minute: number, ts: Float64Array, values: Float64Array): void {
      for (let device = 0; device < deviceCount; device++) {
        ts[device] = start + minute * intervalMs + ((device * 97) % 50_000) + Math.floor(random() * 250);
      }
      for (let index = 0; index < registerCount; index++) {
        const next = step(index, state[index] as number);
        state[index] = next;
        values[index] = next;
      }
    },
  };
}

/** Polls a storage period holds in the plant with aggregates: one every 10 s of a one-minute period. */
export const samplesPerPeriod = 6;

/**
 * The plant polled every 10 s, stored once a minute (docs/api.md section 4.6): each
 * stored value is the period's first poll, and `samplesPerPeriod - 1` more polls
 * follow it, each a small step of the register's kind (temperatures rarely move
 * within a minute, voltage is noise every poll, a counter grows). Returns the
 * period's raw min, max and mean. A seed of its own, so the plant's stored values
 * are the same as without aggregates.
 */
export function createPeriodSampler(seed: number) {
  const random = seededRandom(seed);
  const step = (index: number, value: number): number => {
    const draw = random();
    switch (kindOf(index)) {
      case 0:
      case 1:
      case 2:
      case 3:
        return draw < 0.03 ? value - 1 : draw < 0.06 ? value + 1 : value;
      case 4:
      case 8:
        return value;
      case 5:
        return draw < 0.1 ? value + (draw < 0.05 ? -1 : 1) : value;
      case 6:
        return Math.fround(230 + (draw - 0.5) * 4);
      case 7:
        return Math.fround(Math.abs(value + (draw - 0.5) * 0.1));
      default:
        return value + Math.floor(draw * 7);
    }
  };
  return (index: number, value: number) => {
    let min = value;
    let max = value;
    let sum = value;
    let current = value;
    for (let poll = 1; poll < samplesPerPeriod; poll++) {
      current = step(index, current);
      if (current < min) min = current;
      if (current > max) max = current;
      sum += current;
    }
    return { rawMin: min, rawMax: max, rawMean: sum / samplesPerPeriod, samples: samplesPerPeriod };
  };
}
