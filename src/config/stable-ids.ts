/**
 * The ids fieldhub derives when the file gives none. Each is a name-based UUID of
 * the element's natural key, so it survives restarts, reordering and unrelated
 * edits. Changing any of these formulas changes every public id: don't.
 */
import { stableUuid } from "../lib/ids.ts";

export const derivedId = {
  organization: (orgKey: string) => stableUuid("organization", orgKey),
  customer: (orgKey: string, customerKey: string) => stableUuid("customer", orgKey, customerKey),
  gateway: (serial: string) => stableUuid("gateway", serial),
  device: (serial: string, deviceKey: string) => stableUuid("modbus-device", serial, deviceKey),
  register: (serial: string, deviceKey: string, registerName: string) =>
    stableUuid("register", serial, deviceKey, registerName),
  template: (brand: string, model: string) => stableUuid("template", brand, model),
  rule: (name: string) => stableUuid("rule", name),
  // The same namespace as rules: the detector is a rule too (alerts carry its id as rule_id).
  offlineDetector: () => stableUuid("rule", "offline-detector"),
  automation: (name: string) => stableUuid("automation", name),
};

/**
 * A device's natural key within its gateway: its name, or else its address
 * (`host:port/slave_id` on TCP, `:/slave_id` on RTU buses). The port is the one in
 * effect, so writing the default 502 or leaving it out gives the same id.
 */
export function deviceKey(name: string | null, host: string | null, port: number | null, slaveId: number): string {
  return name ?? `${host ?? ""}:${port ?? ""}/${slaveId}`;
}

/** The id an element gets: a written one wins (UUIDs are compared and stored in lower case), else the derived one. */
export function idOr(written: string | undefined, derive: () => string): string {
  return written === undefined ? derive() : written.toLowerCase();
}
