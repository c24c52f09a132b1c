/**
 * The alert events (docs/api.md section 6.6: alert triggered, alert returned, alert
 * status; docs/alerts.md, the transition table), with the gateway's
 * `serial` and `device_name` and the register's names added (section 9.2). An
 * offline alert (source `detector`) concerns the gateway only: no value or
 * threshold, null register fields. The status events name the register the alert
 * remembers (null for an alert opened before alerts remembered it).
 */
import { type Static, Type } from "@sinclair/typebox";
import { isoOrNull } from "../../../lib/clock.ts";
import { type AlertSeverity, alertSeverities } from "../alerts.ts";
import {
  type GatewayNames,
  gatewayData,
  gatewayFields,
  gatewayFieldsOrNull,
  isoTime,
  literals,
  nullable,
  publicId,
  type RegisterNames,
  registerData,
  registerFieldsOrNull,
} from "./fields.ts";

export const alertSources = ["rule", "detector"] as const;
export type AlertSource = (typeof alertSources)[number];

/** The alert, its rule and gateway: the first fields of `alert.triggered` and `alert.returned`. */
const subjectFields = {
  alert_id: publicId,
  rule_id: publicId,
  rule_name: Type.String(),
  ...gatewayFields,
  severity: literals(alertSeverities),
};

export const AlertTriggeredData = Type.Object(
  {
    ...subjectFields,
    value: Type.Optional(Type.Number()),
    threshold: Type.Optional(Type.Number()),
    /** The rule's comparison (`gt`, ...), or `offline`. */
    condition: Type.String(),
    message: Type.String(),
    source: literals(alertSources),
    ...registerFieldsOrNull,
  },
  { additionalProperties: false },
);
export type AlertTriggeredData = Static<typeof AlertTriggeredData>;

export const AlertReturnedData = Type.Object(
  {
    ...subjectFields,
    value: Type.Optional(Type.Number()),
    condition: Type.String(),
    source: literals(alertSources),
    ...registerFieldsOrNull,
  },
  { additionalProperties: false },
);
export type AlertReturnedData = Static<typeof AlertReturnedData>;

export const AlertStatusData = Type.Object(
  {
    alert_id: publicId,
    ...gatewayFieldsOrNull,
    rule_id: nullable(Type.String()),
    severity: literals(alertSeverities),
    message: Type.String(),
    status: literals(["acknowledged", "resolved"] as const),
    value: nullable(Type.Number()),
    acknowledged_at: nullable(isoTime),
    resolved_at: nullable(isoTime),
    note: nullable(Type.String()),
    ...registerFieldsOrNull,
  },
  { additionalProperties: false },
);
export type AlertStatusData = Static<typeof AlertStatusData>;

/** What an alert change is about: the rule (or detector) and where it fired. */
export interface AlertSubject {
  rule: { id: string; name: string; severity: AlertSeverity };
  source: AlertSource;
  /** The rule's comparison, or `offline` for the detector. */
  condition: string;
  gateway: GatewayNames;
  /** Null for the detector. */
  register: RegisterNames | null;
  /** The detector's alert for one Modbus device (`offline_alerts.devices`): the device, no register. */
  modbusDevice?: { id: string; name: string | null };
}

/** The register fields, or for a Modbus device's offline alert its device with null register fields. */
export const concernsData = (subject: AlertSubject) => ({
  ...registerData(subject.register),
  ...(subject.modbusDevice === undefined
    ? {}
    : { modbus_device_id: subject.modbusDevice.id, modbus_device_name: subject.modbusDevice.name }),
});

const subjectData = (alertId: string, subject: AlertSubject) => ({
  alert_id: alertId,
  rule_id: subject.rule.id,
  rule_name: subject.rule.name,
  ...gatewayData(subject.gateway),
  severity: subject.rule.severity,
});

/** `measured`: the value and the rule's threshold; null for the detector. */
export function alertTriggered(
  alertId: string,
  subject: AlertSubject,
  message: string,
  measured: { value: number; threshold: number } | null,
) {
  return {
    type: "alert.triggered" as const,
    data: {
      ...subjectData(alertId, subject),
      ...measured,
      condition: subject.condition,
      message,
      source: subject.source,
      ...concernsData(subject),
    } satisfies AlertTriggeredData,
  };
}

/** `value`: the value that came back; null for the detector. */
export function alertReturned(alertId: string, subject: AlertSubject, value: number | null) {
  return {
    type: "alert.returned" as const,
    data: {
      ...subjectData(alertId, subject),
      ...(value === null ? {} : { value }),
      condition: subject.condition,
      source: subject.source,
      ...concernsData(subject),
    } satisfies AlertReturnedData,
  };
}

/**
 * An alert as its status events describe it; its gateway's fields are null when the
 * gateway is gone, its register's for an offline alert and an alert opened before
 * alerts remembered their register.
 */
export interface AlertStatusSubject {
  uuid: string;
  gatewayUuid: string | null;
  gatewaySerial: string | null;
  gatewayName: string | null;
  modbusDeviceUuid: string | null;
  modbusDeviceName: string | null;
  registerUuid: string | null;
  registerName: string | null;
  registerUnit: string | null;
  ruleId: string | null;
  severity: AlertSeverity;
  message: string;
  value: number | null;
  ackAt: number | null;
}

/** Acknowledged or resolved at `at`, with the operator's note. */
export function alertStatusChanged(
  alert: AlertStatusSubject,
  status: "acknowledged" | "resolved",
  at: number,
  note: string | null,
) {
  return {
    type: status === "acknowledged" ? ("alert.acknowledged" as const) : ("alert.resolved" as const),
    data: {
      alert_id: alert.uuid,
      device_id: alert.gatewayUuid,
      serial: alert.gatewaySerial,
      device_name: alert.gatewayName,
      rule_id: alert.ruleId,
      severity: alert.severity,
      message: alert.message,
      status,
      value: alert.value,
      acknowledged_at: isoOrNull(status === "acknowledged" ? at : alert.ackAt),
      resolved_at: isoOrNull(status === "resolved" ? at : null),
      note,
      modbus_device_id: alert.modbusDeviceUuid,
      modbus_device_name: alert.modbusDeviceName,
      register_id: alert.registerUuid,
      register_name: alert.registerName,
      unit: alert.registerUnit,
    } satisfies AlertStatusData,
  };
}
