/**
 * Whether a register's latest value may be presented as current (docs/api.md
 * section 2.7, `latest_status`): the one rule every door that publishes latest
 * values reads (the API's register presenter; webhooks, MQTT and a Modbus server
 * when they publish one), so a stale value is nowhere passed off as fresh.
 *
 * - `unavailable`: its device is unreachable or quarantined, or the register is set
 *   aside (its device refuses it): the value is the last one read before that;
 * - `stale`: not read within two of its poll intervals (its poll group's, else its
 *   device's; or never read);
 * - `ok`: read within them.
 *
 * On a central, a site's register (docs/fleet.md, "Forwarding") has no device health
 * here and its value arrives only with a forwarded reading, one per storage period:
 * it is `stale` when not received within its storage interval plus a forwarding
 * allowance (`forwardingAllowanceMs`), else `ok`.
 */
import type { DeviceHealthStatus } from "./device-health.ts";
import { effectiveStorageInterval } from "./storage-period.ts";

export const latestStatuses = ["ok", "stale", "unavailable"] as const;
export type LatestStatus = (typeof latestStatuses)[number];

/** How many poll intervals a value stays current: one cycle late is jitter, two is a device not being read. */
export const freshForPollIntervals = 2;

/**
 * How late a site's reading may reach a central beyond its storage interval: the site
 * stores it within its period's poll and commit, and forwards it at its next round
 * (`uplink.check_interval_s`, 30 s by default): two default rounds.
 */
export const forwardingAllowanceMs = 60_000;

export interface LatestValueContext {
  /** Wall time of the latest value read (ms), or null when none was. */
  latestTs: number | null;
  /** The interval it is polled at (ms): its poll group's, else its device's; null when not known (a gateway forwarded by a site). */
  pollIntervalMs: number | null;
  /** Its device's health as this process's pollers see it. */
  deviceHealth: DeviceHealthStatus;
  setAside: boolean;
  /** Set on a central for a site's register: its device's storage interval (ms; null for the default). */
  forwarded: { storageIntervalMs: number | null } | null;
  now: number;
}

export function latestStatus(context: LatestValueContext): LatestStatus {
  const { latestTs, pollIntervalMs, deviceHealth, setAside, forwarded, now } = context;
  if (forwarded !== null) {
    const freshForMs = effectiveStorageInterval(forwarded.storageIntervalMs) + forwardingAllowanceMs;
    return latestTs === null || now - latestTs > freshForMs ? "stale" : "ok";
  }
  if (setAside || deviceHealth === "unreachable" || deviceHealth === "quarantined") return "unavailable";
  if (latestTs === null) return "stale";
  // A value stamped ahead of now (a clock stepped back since) is not older than its interval.
  if (pollIntervalMs !== null && now - latestTs > freshForPollIntervals * pollIntervalMs) return "stale";
  return "ok";
}
