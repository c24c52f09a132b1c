/**
 * Brings the demo store up to now before the appliance starts: gateway states,
 * several days of backfilled history, alerts in every status, the sandbox key.
 * The demo knows nothing of the store: the demo command hands it a
 * `DemoSeedStore` made of the store's operations.
 */
import type { Inventory } from "../lib/inventory.ts";
import type { ReadingAggregate } from "../lib/reading-aggregate.ts";
import { type DemoAlert, demoAlerts } from "./alerts.ts";
import { demoGatewaySerials, demoStorageIntervalMs } from "./demo-config.ts";
import { registersOf } from "./equipment.ts";
import { type DemoRegister, demoRawValue, demoTimestamps } from "./history.ts";

const minute = 60_000;
const hour = 60 * minute;
/** Older history is backfilled sparser than it is stored live, to start fast. */
const backfillIntervalMs = 5 * minute;
/** The last hour is backfilled at the live storage interval, up to the current period. */
const denseBackfillMs = hour;
const heatPumpSilentFor = 3 * hour;

type BackfilledReading = {
  registerId: number;
  ts: number;
  rawValue: number | null;
  aggregate: ReadingAggregate | null;
};

/** Polls a backfilled reading's storage period is taken to have had (the demo devices poll every 5 or 10 s). */
const backfillSamples = 6;

/**
 * A backfilled reading's aggregate (docs/api.md section 4.6): the demo values at
 * `backfillSamples` polls spread over its storage period, the first one the reading's.
 */
function backfillAggregate(register: DemoRegister, ts: number, first: number | null): ReadingAggregate | null {
  if (first === null) return null;
  let min = first;
  let max = first;
  let sum = first;
  for (let poll = 1; poll < backfillSamples; poll++) {
    const raw = demoRawValue(register, ts + (poll * demoStorageIntervalMs) / backfillSamples);
    if (raw === null) return null;
    if (raw < min) min = raw;
    if (raw > max) max = raw;
    sum += raw;
  }
  return { rawMin: min, rawMax: max, rawMean: sum / backfillSamples, samples: backfillSamples };
}

/** What seeding needs of the store, with the demo inventory already synced. */
export interface DemoSeedStore {
  /** Store ids of the demo organisation's gateways, by serial. */
  gatewaysBySerial(): Promise<Map<string, { id: number; uuid: string }>>;
  setGatewayState(
    uuid: string,
    state: { status: "online" | "offline"; lastSeen: number; claimedAt: number },
  ): Promise<void>;
  /** A gateway's registers, with the time of each one's newest stored reading. */
  registers(gatewayId: number): Promise<(DemoRegister & { id: number; uuid: string; latestTs: number | null })[]>;
  recordReadings(batch: BackfilledReading[]): Promise<void>;
  /** Adds the alert unless one with its id exists. */
  addAlert(alert: DemoAlert, gatewayId: number | null): Promise<void>;
  /** Adds the fixed sandbox key unless it exists. */
  addSandboxKey(): Promise<void>;
}

/** Safe on every start (only what is missing is added); returns how many readings were backfilled. */
export async function seedDemo(
  target: DemoSeedStore,
  inventory: Inventory,
  now: number,
  days: number,
): Promise<number> {
  const gatewayIds = await target.gatewaysBySerial();
  const claimedAt = now - days * 24 * hour;
  for (const serial of [demoGatewaySerials.greenhouse, demoGatewaySerials.energy]) {
    const gateway = gatewayIds.get(serial);
    if (gateway !== undefined)
      await target.setGatewayState(gateway.uuid, { status: "online", lastSeen: now, claimedAt });
  }
  const heatPump = gatewayIds.get(demoGatewaySerials.heatPump);
  if (heatPump !== undefined) {
    await target.setGatewayState(heatPump.uuid, { status: "offline", lastSeen: now - heatPumpSilentFor, claimedAt });
  }

  const units = registersOf(inventory);
  let added = 0;
  for (const [serial, gateway] of gatewayIds) {
    const until = serial === demoGatewaySerials.heatPump ? now - heatPumpSilentFor : now;
    const batch: BackfilledReading[] = [];
    for (const register of await target.registers(gateway.id)) {
      if (register.dataType === "string") continue;
      const meta = { ...register, unit: units.get(register.uuid)?.unit ?? register.unit };
      // Backfill and live storage agree: backfilled values sit
      // on the live storage grid up to the current period, which ingest then
      // counts as stored, and start a storage interval after what is stored.
      const from = Math.max(
        now - days * 24 * hour,
        (register.latestTs ?? -demoStorageIntervalMs) + demoStorageIntervalMs,
      );
      const denseFrom = Math.max(from, until - denseBackfillMs);
      const timestamps = [
        ...demoTimestamps(from, denseFrom, backfillIntervalMs),
        ...demoTimestamps(denseFrom, until, demoStorageIntervalMs),
      ];
      for (const ts of timestamps) {
        const rawValue = demoRawValue(meta, ts);
        batch.push({ registerId: register.id, ts, rawValue, aggregate: backfillAggregate(meta, ts, rawValue) });
      }
    }
    await target.recordReadings(batch);
    added += batch.length;
  }

  for (const alert of demoAlerts(now)) await target.addAlert(alert, gatewayIds.get(alert.gatewaySerial)?.id ?? null);
  await target.addSandboxKey();
  return added;
}
