/**
 * `automation.triggered` (docs/api.md section 6.6, automation: the automation's own
 * id and name as `rule_id` and `rule_name`, its action objects), with what triggered
 * it added (section 9.2): `trigger` is `alert` (an `alert.triggered` of the
 * automation's rule, the detector included) or `schedule`; for an alert, the alert's
 * id and status, its source, the gateway and register it fired on, and the value.
 */
import { type Static, Type } from "@sinclair/typebox";
import { type AlertStatus, alertStatuses } from "../alerts.ts";
import { type AlertSource, type AlertSubject, alertSources, concernsData } from "./alerts.ts";
import { gatewayData, gatewayFields, literals, publicId, registerFieldsOrNull } from "./fields.ts";

export const AutomationTriggeredData = Type.Composite(
  [
    Type.Object({
      rule_id: publicId,
      rule_name: Type.String(),
      /** Each with its `type` (`webhook`); a new action kind adds fields to its object. */
      actions: Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true })),
      trigger: literals(["alert", "schedule"] as const),
    }),
    // Present when `trigger` is `alert`; `value` not for the detector.
    Type.Partial(
      Type.Object({
        alert_id: publicId,
        alert_status: literals(alertStatuses),
        source: literals(alertSources),
        ...gatewayFields,
        ...registerFieldsOrNull,
        value: Type.Number(),
      }),
    ),
  ],
  { additionalProperties: false },
);
export type AutomationTriggeredData = Static<typeof AutomationTriggeredData>;

/** The alert that ran an automation: as triggered, with its status afterwards. */
export interface AutomationCause {
  alertId: string;
  alertStatus: AlertStatus;
  subject: AlertSubject;
  /** Null for the detector. */
  value: number | null;
}

/** `cause`: the alert that triggered the automation, null when its schedule did. */
export function automationTriggered(
  automation: { id: string; name: string; actions: readonly { type: string }[] },
  cause: AutomationCause | null,
) {
  const base = {
    rule_id: automation.id,
    rule_name: automation.name,
    actions: automation.actions.map((action) => ({ ...action })),
  };
  const data: AutomationTriggeredData =
    cause === null
      ? { ...base, trigger: "schedule" }
      : {
          ...base,
          trigger: "alert",
          alert_id: cause.alertId,
          alert_status: cause.alertStatus,
          source: cause.subject.source satisfies AlertSource,
          ...gatewayData(cause.subject.gateway),
          ...concernsData(cause.subject),
          ...(cause.value === null ? {} : { value: cause.value }),
        };
  return { type: "automation.triggered" as const, data };
}
