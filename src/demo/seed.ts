/**
 * Brings the demo store up to now before the appliance starts: gateway states,
 * several days of backfilled history, alerts in every status, the sandbox key.
 */
import type { FieldhubConfig } from "../config/index.ts";
import { hostAddresses, withHostFacts } from "../lib/host.ts";
import { version } from "../lib/version.ts";
import { insertAlert } from "../store/alerts.ts";
import { gatewayQueries, setGatewayStatus } from "../store/gateways.ts";
import { syncInventory } from "../store/inventory.ts";
import { createApiKey } from "../store/keys.ts";
import type { Store } from "../store/open.ts";
import { findOrganizationByKey } from "../store/organizations.ts";
import { type NewReading, readingQueries } from "../store/readings.ts";
import { registerQueries } from "../store/registers.ts";
import { demoAlerts } from "./alerts.ts";
import { demoGatewaySerials, demoOrganizationKey, demoSandboxKey } from "./demo-config.ts";
import { registersOf } from "./equipment.ts";
import { demoRawValue, demoTimestamps } from "./history.ts";

const minute = 60_000;
const hour = 60 * minute;
const backfillIntervalMs = 5 * minute;
const heatPumpSilentFor = 3 * hour;

/** Safe on every start (only what is missing is added); returns how many readings were backfilled. */
export function seedDemo(store: Store, config: FieldhubConfig, now: number, days: number): number {
  // The appliance syncs too when it starts; the seed needs the rows before that.
  syncInventory(store, withHostFacts(config.inventory, hostAddresses(), version), now);
  const org = findOrganizationByKey(store, demoOrganizationKey);
  if (org === null) throw new Error("demo organisation missing after sync");
  const gateways = gatewayQueries(store);
  const gatewayIds = new Map<string, { id: number; uuid: string }>();
  for (const gateway of config.inventory.organizations[0]?.gateways ?? []) {
    const row = gateways.find(org.id, gateway.id);
    if (row !== null) gatewayIds.set(gateway.serial, { id: row.id, uuid: row.uuid });
  }
  const claimedAt = now - days * 24 * hour;
  for (const serial of [demoGatewaySerials.greenhouse, demoGatewaySerials.energy]) {
    const gateway = gatewayIds.get(serial);
    if (gateway !== undefined) setGatewayStatus(store, gateway.uuid, { status: "online", lastSeen: now, claimedAt });
  }
  const heatPump = gatewayIds.get(demoGatewaySerials.heatPump);
  if (heatPump !== undefined) {
    setGatewayStatus(store, heatPump.uuid, { status: "offline", lastSeen: now - heatPumpSilentFor, claimedAt });
  }

  const registers = registerQueries(store);
  const readings = readingQueries(store);
  const units = registersOf(config);
  let added = 0;
  for (const [serial, gateway] of gatewayIds) {
    const until = serial === demoGatewaySerials.heatPump ? now - heatPumpSilentFor : now;
    const batch: NewReading[] = [];
    for (const register of registers.listRegisters(gateway.id)) {
      if (register.dataType === "string") continue;
      const meta = { ...register, unit: units.get(register.uuid)?.unit ?? register.unit };
      const from = Math.max(now - days * 24 * hour, (register.latestTs ?? 0) + 1);
      for (const ts of demoTimestamps(from, until, backfillIntervalMs)) {
        batch.push({ registerId: register.id, ts, rawValue: demoRawValue(meta, ts) });
      }
    }
    readings.record(batch);
    added += batch.length;
  }

  for (const alert of demoAlerts(now)) {
    const { id, gatewaySerial, ...fields } = alert;
    insertAlert(store, { ...fields, uuid: id, orgId: org.id, gatewayId: gatewayIds.get(gatewaySerial)?.id ?? null });
  }
  createApiKey(
    store,
    {
      orgKey: demoOrganizationKey,
      name: "Sandbox (demo)",
      scopes: ["devices:read", "registers:read", "alerts:read"],
      expiresAt: null,
      kind: "sandbox",
      key: demoSandboxKey,
    },
    now,
  );
  return added;
}
