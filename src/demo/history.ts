/**
 * Plausible values for the demo's registers: daily curves plus a little noise,
 * computed from the register name and the time alone, so a backfill and a later
 * top-up agree wherever they meet.
 */
const dayMs = 86_400_000;

/** Deterministic noise in [-1, 1] for a (name, time) pair. */
function noise(name: string, ts: number): number {
  let hash = 2166136261;
  for (let index = 0; index < name.length; index++) hash = Math.imul(hash ^ name.charCodeAt(index), 16777619);
  let x = (hash ^ Math.floor(ts / 1000)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b) >>> 0;
  x = (x ^ (x >>> 16)) >>> 0;
  return (x / 0xffffffff) * 2 - 1;
}

/** Sun-shaped daily curve: -1 at night, +1 at about 14:00 UTC. */
function daily(ts: number): number {
  return Math.sin(2 * Math.PI * ((ts % dayMs) / dayMs) - (2 * Math.PI * 8) / 24);
}

const generators: Record<string, (ts: number, n: number) => number> = {
  air_temperature: (ts, n) => 19 + 4 * daily(ts) + 0.3 * n,
  relative_humidity: (ts, n) => 76 - 12 * daily(ts) + 1.5 * n,
  co2: (ts, n) => 650 + 300 * Math.max(0, daily(ts)) + 25 * n,
  pipe_temperature: (ts, n) => 44 - 9 * daily(ts) + 0.5 * n,
  heating_setpoint: (ts) => (daily(ts) > -0.3 ? 20 : 17.5),
  voltage_l1: (_ts, n) => 230.5 + 1.8 * n,
  current_l1: (ts, n) => 14 + 9 * daily(ts) + 0.8 * n,
  active_power: (ts, n) => (230.5 + 1.8 * n) * (14 + 9 * daily(ts)) * 0.96,
  frequency: (_ts, n) => 50 + 0.03 * n,
  // A counter: about 3.1 kW on average since the demo's epoch.
  energy_import: (ts) => 18_250 + ((ts - Date.UTC(2026, 0, 1)) / 3_600_000) * 3.1,
  flow_temperature: (ts, n) => 38 - 6 * daily(ts) + 0.4 * n,
  return_temperature: (ts, n) => 33 - 5 * daily(ts) + 0.4 * n,
  outdoor_temperature: (ts, n) => 7 + 5 * daily(ts) + 0.4 * n,
  compressor_frequency: (ts, n) => 58 - 22 * daily(ts) + 3 * n,
};

export interface DemoRegister {
  name: string;
  dataType: string;
  scaleFactor: number | null;
}

/** The raw register value (what the device would report) at time `ts`. */
export function demoRawValue(register: DemoRegister, ts: number): number | null {
  const generate = generators[register.name];
  if (generate === undefined) return null;
  const value = generate(ts, noise(register.name, ts));
  const raw = value / (register.scaleFactor ?? 1);
  switch (register.dataType) {
    case "float32":
      return Number(Math.fround(raw).toPrecision(7));
    case "uint16":
      return Math.min(65_535, Math.max(0, Math.round(raw)));
    case "int16":
      return Math.min(32_767, Math.max(-32_768, Math.round(raw)));
    default:
      return Math.round(raw);
  }
}

/** Timestamps of stored values in [from, to): on the grid of `intervalMs`. */
export function demoTimestamps(from: number, to: number, intervalMs: number): number[] {
  const timestamps: number[] = [];
  for (let ts = Math.ceil(from / intervalMs) * intervalMs; ts < to; ts += intervalMs) timestamps.push(ts);
  return timestamps;
}
