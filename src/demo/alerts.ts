/**
 * The demo's alerts, one in each status (docs/api.md section 3), placed relative to
 * the moment the demo starts. Ids are fixed so a restart does not add them again.
 */
import { stableUuid } from "../lib/ids.ts";
import { demoGatewaySerials } from "./demo-config.ts";

const minute = 60_000;
const hour = 60 * minute;

export interface DemoAlert {
  id: string;
  gatewaySerial: string;
  ruleId: string;
  severity: "critical" | "warning" | "info";
  message: string;
  status: "active" | "returned" | "acknowledged" | "resolved";
  value: number | null;
  createdAt: number;
  lastTriggeredAt: number;
  returnedAt: number | null;
  ackAt: number | null;
  ackNote: string | null;
  resolvedAt: number | null;
  resolveNote: string | null;
  entryCount: number;
}

/** The offline detector's id (its default in the config), so this alert is the detector's own. */
const offlineRule = stableUuid("rule", "offline-detector");

export function demoAlerts(now: number): DemoAlert[] {
  const base = {
    ackAt: null,
    ackNote: null,
    returnedAt: null,
    resolvedAt: null,
    resolveNote: null,
  };
  return [
    {
      ...base,
      id: stableUuid("demo-alert", "heat-pump-offline"),
      gatewaySerial: demoGatewaySerials.heatPump,
      ruleId: offlineRule,
      severity: "critical",
      message: "Gateway Boiler house is offline",
      status: "active",
      value: null,
      createdAt: now - 3 * hour,
      lastTriggeredAt: now - 3 * hour,
      entryCount: 1,
    },
    {
      ...base,
      id: stableUuid("demo-alert", "co2-high"),
      gatewaySerial: demoGatewaySerials.greenhouse,
      ruleId: stableUuid("demo-rule", "co2-high"),
      severity: "warning",
      message: "CO2 above 900 ppm: 934 ppm",
      status: "returned",
      value: 934,
      createdAt: now - 26 * hour,
      lastTriggeredAt: now - 2 * hour,
      returnedAt: now - 90 * minute,
      entryCount: 3,
    },
    {
      ...base,
      id: stableUuid("demo-alert", "air-temperature-low"),
      gatewaySerial: demoGatewaySerials.greenhouse,
      ruleId: stableUuid("demo-rule", "air-temperature-low"),
      severity: "critical",
      message: "Air temperature below 15 °C: 14.6 °C",
      status: "acknowledged",
      value: 14.6,
      createdAt: now - 30 * hour,
      lastTriggeredAt: now - 30 * hour,
      ackAt: now - 29 * hour,
      ackNote: "Screen opened for maintenance; heating checked.",
      entryCount: 1,
    },
    {
      ...base,
      id: stableUuid("demo-alert", "voltage-dip"),
      gatewaySerial: demoGatewaySerials.energy,
      ruleId: stableUuid("demo-rule", "voltage-low"),
      severity: "info",
      message: "Voltage L1 below 215 V: 212.8 V",
      status: "resolved",
      value: 212.8,
      createdAt: now - 4 * 24 * hour,
      lastTriggeredAt: now - 4 * 24 * hour,
      returnedAt: now - 4 * 24 * hour + 5 * minute,
      resolvedAt: now - 3 * 24 * hour,
      resolveNote: "Grid operator confirmed a short dip.",
      entryCount: 1,
    },
  ];
}
