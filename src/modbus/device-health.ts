/**
 * The health board: what the pollers last saw of each Modbus device and which
 * registers its device refuses. Kept in memory only: the API runs in the process
 * that polls, health is about now, and a restart polls again within a cycle, so
 * writing it to flash every cycle would buy nothing (docs/api.md section 2.6, device health).
 */
import {
  type DeviceHealth,
  type DeviceHealthReader,
  type DeviceHealthStatus,
  type RegisterSetAside,
  unknownHealth,
} from "../lib/device-health.ts";
import { DeviceBusCounters } from "./bus-stats.ts";

/** Told when a device's health status changes (the poller passes it on to its PollSink). */
export type HealthChangeListener = (deviceId: string, previous: DeviceHealthStatus, health: DeviceHealth) => void;

type DeviceRecord = {
  /** The last cycle's outcome: answered (fully or in part), or silent; null before the first. */
  answered: boolean | null;
  /** The last cycle answered but had a request fail. */
  partial: boolean;
  linkDown: boolean;
  quarantinedUntil: number | null;
  lastAnswerAt: number | null;
  lastError: string | null;
  lastErrorAt: number | null;
  setAside: Set<string>;
};

export function createDeviceHealthBoard() {
  const devices = new Map<string, DeviceRecord>();
  const registers = new Map<string, RegisterSetAside>();
  /** Each device's bus counters, since start (docs/polling.md, "Bus diagnostics"). */
  const counters = new Map<string, DeviceBusCounters>();
  const listeners = new Map<string, HealthChangeListener>();

  const recordOf = (deviceId: string): DeviceRecord => {
    let record = devices.get(deviceId);
    if (record === undefined) {
      record = {
        answered: null,
        partial: false,
        linkDown: false,
        quarantinedUntil: null,
        lastAnswerAt: null,
        lastError: null,
        lastErrorAt: null,
        setAside: new Set(),
      };
      devices.set(deviceId, record);
    }
    return record;
  };

  const reader: DeviceHealthReader = {
    device(deviceId: string): DeviceHealth {
      const record = devices.get(deviceId);
      const counted = counters.get(deviceId);
      if (record === undefined)
        return counted === undefined ? unknownHealth : { ...unknownHealth, counters: counted.snapshot() };
      return {
        status: statusOf(record),
        lastAnswerAt: record.lastAnswerAt,
        lastError: record.lastError,
        lastErrorAt: record.lastErrorAt,
        registersSetAside: record.setAside.size,
        nextProbeAt: record.quarantinedUntil,
        counters: counted?.snapshot() ?? unknownHealth.counters,
      };
    },
    setAside: (registerId) => registers.get(registerId) ?? null,
  };

  /** Runs a change of one device's record and tells its listener when its status moved. */
  function changing(deviceId: string, change: (record: DeviceRecord) => void): void {
    const record = recordOf(deviceId);
    const before = statusOf(record);
    change(record);
    const listener = listeners.get(deviceId);
    if (listener !== undefined && statusOf(record) !== before) listener(deviceId, before, reader.device(deviceId));
  }

  return {
    reader,
    /** The counters the channel and the poll loop keep for this device. */
    countersOf(deviceId: string): DeviceBusCounters {
      let counted = counters.get(deviceId);
      if (counted === undefined) {
        counted = new DeviceBusCounters();
        counters.set(deviceId, counted);
      }
      return counted;
    },
    /** Tells `listener` each health status change of these devices. */
    watch(deviceIds: readonly string[], listener: HealthChangeListener): void {
      for (const deviceId of deviceIds) listeners.set(deviceId, listener);
    },
    /** A failure in words, as it happened (a cycle may go on after it). */
    failed(deviceId: string, at: number, error: string): void {
      const record = recordOf(deviceId);
      record.lastError = error;
      record.lastErrorAt = at;
    },
    /** The end of one poll cycle of the device. */
    cycle(deviceId: string, at: number, outcome: { answered: boolean; partial: boolean }): void {
      changing(deviceId, (record) => {
        record.answered = outcome.answered;
        record.partial = outcome.partial;
        record.linkDown = false;
        if (outcome.answered) {
          record.lastAnswerAt = at;
          record.quarantinedUntil = null;
        }
      });
    },
    quarantined(deviceId: string, until: number): void {
      changing(deviceId, (record) => {
        record.quarantinedUntil = until;
      });
    },
    /** The connection that serves these devices is down. */
    linkDown(deviceIds: readonly string[], at: number, error: string): void {
      for (const deviceId of deviceIds) {
        changing(deviceId, (record) => {
          record.linkDown = true;
          record.lastError = error;
          record.lastErrorAt = at;
        });
      }
    },
    setAside(deviceId: string, registerId: string, entry: RegisterSetAside): void {
      changing(deviceId, (record) => record.setAside.add(registerId));
      registers.set(registerId, entry);
    },
    readsAgain(deviceId: string, registerId: string): void {
      changing(deviceId, (record) => record.setAside.delete(registerId));
      registers.delete(registerId);
    },
  };
}
export type DeviceHealthBoard = ReturnType<typeof createDeviceHealthBoard>;

function statusOf(record: DeviceRecord): DeviceHealth["status"] {
  if (record.quarantinedUntil !== null) return "quarantined";
  if (record.linkDown || record.answered === false) return "unreachable";
  if (record.answered === null) return "unknown";
  return record.partial || record.setAside.size > 0 ? "degraded" : "ok";
}
