/**
 * Plausible values for the demo's equipment: daily curves plus a little noise,
 * computed from the register and the time alone, so the backfilled history, the
 * simulated devices and a later top-up agree wherever they meet.
 */
const dayMs = 86_400_000;
const hourMs = 3_600_000;
/** Counters (energy, running hours) count from here. */
const counterEpoch = Date.UTC(2024, 0, 1);

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

const sunshine = (ts: number) => Math.max(0, daily(ts));
const hoursSinceEpoch = (ts: number) => (ts - counterEpoch) / hourMs;

/** Registers with a curve of their own, by name. */
const byName: Record<string, (ts: number, n: number) => number> = {
  air_temperature: (ts, n) => 19 + 4 * daily(ts) + 0.3 * n,
  relative_humidity: (ts, n) => 76 - 12 * daily(ts) + 1.5 * n,
  co2: (ts, n) => 650 + 300 * sunshine(ts) + 25 * n,
  pipe_temperature: (ts, n) => 44 - 9 * daily(ts) + 0.5 * n,
  heating_setpoint: (ts) => (daily(ts) > -0.3 ? 20 : 17.5),
  screen_position: (ts) => (sunshine(ts) > 0.8 ? 60 : daily(ts) < -0.2 ? 100 : 0),
  // A four-minute sawtooth and a door open three minutes in six: the demo's rules fire and return.
  vent_position: (ts) => Math.round(((ts / 1000) % 240) / 2.4),
  door_open: (ts) => Math.floor(ts / 180_000) % 2,
  room_temperature: (ts, n) => 21 + 1.5 * daily(ts) + 0.2 * n,
  current_setpoint: (ts) => (daily(ts) > -0.3 ? 21 : 18),
  comfort_setpoint: () => 21,
  outside_temperature: (ts, n) => 7 + 5 * daily(ts) + 0.4 * n,
  outdoor_temperature: (ts, n) => 7 + 5 * daily(ts) + 0.4 * n,
  flow_temperature: (ts, n) => 38 - 6 * daily(ts) + 0.4 * n,
  return_temperature: (ts, n) => 33 - 5 * daily(ts) + 0.4 * n,
  compressor_frequency: (ts, n) => 58 - 22 * daily(ts) + 3 * n,
  operating_mode: (ts) => (daily(ts) > -0.3 ? 1 : 3),
  frequency: (_ts, n) => 50 + 0.03 * n,
  ac_power: (ts, n) => 9_000 * sunshine(ts) * (0.9 + 0.1 * n),
  dc_power: (ts, n) => 9_400 * sunshine(ts) * (0.9 + 0.1 * n),
  energy_total: (ts) => 41_000_000 + hoursSinceEpoch(ts) * 1_600,
};

/** Everything else, by unit: a typical level and swing for what the unit measures. */
function byUnit(name: string, unit: string | null, ts: number, n: number): number {
  switch (unit) {
    case "V":
      return name.includes("_l1_l2") || name.includes("_l2_l3") || name.includes("_l3_l1") || name.includes("ll")
        ? 399 + 3 * n
        : 230.5 + 1.8 * n;
    case "A":
      return 14 + 9 * daily(ts) + 0.8 * n;
    case "W":
      return 3_100 + 2_000 * daily(ts) + 150 * n;
    case "VA":
      return 3_300 + 2_000 * daily(ts) + 150 * n;
    case "var":
      return 420 + 120 * daily(ts) + 30 * n;
    case "Hz":
      return 50 + 0.03 * n;
    case "kWh":
    case "kvarh":
      return 18_250 + hoursSinceEpoch(ts) * (unit === "kWh" ? 3.1 : 0.4);
    case "Wh":
      return 18_250_000 + hoursSinceEpoch(ts) * 3_100;
    case "h":
      return 9_000 + hoursSinceEpoch(ts) * 0.6;
    case "°C":
      return 21 + 3 * daily(ts) + 0.3 * n;
    case "%":
    case "%RH":
      return name.includes("power_factor") ? 97 + 2 * n : 45 + 25 * daily(ts) + 3 * n;
    case "DM":
      return -120 + 60 * daily(ts);
    default:
      return name.includes("power_factor")
        ? 0.95 + 0.02 * n
        : name.includes("starts")
          ? 4_200 + hoursSinceEpoch(ts) * 0.1
          : 0;
  }
}

export interface DemoRegister {
  name: string;
  unit: string | null;
  dataType: string;
  scaleFactor: number | null;
}

/** The raw register value (what the device would report) at time `ts`; null for text registers. */
export function demoRawValue(register: DemoRegister, ts: number): number | null {
  if (register.dataType === "string") return null;
  const n = noise(register.name, ts);
  const value = byName[register.name]?.(ts, n) ?? byUnit(register.name, register.unit, ts, n);
  const raw = value / (register.scaleFactor ?? 1);
  switch (register.dataType) {
    case "float32":
    case "float64":
      return Number(Math.fround(raw).toPrecision(7));
    case "bool":
      return raw >= 0.5 ? 1 : 0;
    case "uint16":
      return Math.min(65_535, Math.max(0, Math.round(raw)));
    case "int16":
      return Math.min(32_767, Math.max(-32_768, Math.round(raw)));
    case "uint32":
    case "uint64":
      return Math.max(0, Math.round(raw));
    default:
      return Math.round(raw);
  }
}

/** Text a simulated device reports for a `string` register. */
export function demoText(register: { name: string }): string {
  return register.name === "manufacturer" ? "Fronius" : register.name === "model" ? "Symo 10.0-3-M" : "DEMO-0001";
}

/** Timestamps of stored values in [from, to): on the grid of `intervalMs`. */
export function demoTimestamps(from: number, to: number, intervalMs: number): number[] {
  const timestamps: number[] = [];
  for (let ts = Math.ceil(from / intervalMs) * intervalMs; ts < to; ts += intervalMs) timestamps.push(ts);
  return timestamps;
}
