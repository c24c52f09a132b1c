/**
 * Every webhook event type and its data, declared once (docs/webhooks.md, "Event
 * types"; docs/api.md section 6.6, fields added under section 9.2). Each type's data is a
 * TypeBox schema, which gives its static type and its check, and a constructor in
 * event-data/ builds it from typed inputs: every part that records an event builds
 * it there, and test/webhooks/event-docs.test.ts holds docs/webhooks.md to these
 * schemas.
 */
import type { Static, TObject } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { AlertReturnedData, AlertStatusData, AlertTriggeredData } from "./event-data/alerts.ts";
import { AutomationTriggeredData } from "./event-data/automation.ts";
import { DeviceStatusData } from "./event-data/device-status.ts";
import { ModbusDeviceStatusData } from "./event-data/modbus-device-status.ts";
import { RegisterWrittenData } from "./event-data/register-written.ts";
import { WebhookEndpointPausedData } from "./event-data/webhook-endpoint-paused.ts";
import { WebhookTestData } from "./event-data/webhook-test.ts";

export type { AlertStatusSubject, AlertSubject } from "./event-data/alerts.ts";
export { alertReturned, alertStatusChanged, alertTriggered } from "./event-data/alerts.ts";
export { automationTriggered } from "./event-data/automation.ts";
export { deviceStatusEvent } from "./event-data/device-status.ts";
export type { GatewayNames } from "./event-data/fields.ts";
export { type ModbusDeviceChange, modbusDeviceStatusEvent } from "./event-data/modbus-device-status.ts";
export { registerWritten } from "./event-data/register-written.ts";
export {
  type PauseReason,
  pauseReasonText,
  webhookEndpointPaused,
} from "./event-data/webhook-endpoint-paused.ts";
export { webhookTest } from "./event-data/webhook-test.ts";

/** The event types endpoints subscribe to, with their data's schema, in the order docs/webhooks.md lists them. */
export const subscribableEventData = {
  "device.online": DeviceStatusData,
  "device.offline": DeviceStatusData,
  "alert.triggered": AlertTriggeredData,
  "alert.returned": AlertReturnedData,
  "alert.acknowledged": AlertStatusData,
  "alert.resolved": AlertStatusData,
  "automation.triggered": AutomationTriggeredData,
  // Added (docs/api.md section 9.2): a register write through the API or the admin page.
  "register.written": RegisterWrittenData,
  // Added (docs/api.md section 9.2): one Modbus device behind an online gateway stops answering, and answers again.
  "modbus_device.offline": ModbusDeviceStatusData,
  "modbus_device.online": ModbusDeviceStatusData,
  // Added (docs/api.md section 9.2): an endpoint was paused, told to the organisation's other endpoints.
  "webhook_endpoint.paused": WebhookEndpointPausedData,
} as const satisfies Record<string, TObject>;

/** The test message, sent on request to one endpoint only (docs/webhooks.md). */
export const testEventType = "webhook.test";

/** Every event type's data schema, the test message's included. */
export const eventDataSchemas = { ...subscribableEventData, [testEventType]: WebhookTestData } as const;

export type SubscribableEventType = keyof typeof subscribableEventData;
export const eventTypes = Object.keys(subscribableEventData) as SubscribableEventType[];
export type EventType = keyof typeof eventDataSchemas;
export type EventData<T extends EventType> = Static<(typeof eventDataSchemas)[T]>;

/** An event's type with its data: what a constructor returns and the store records. */
export type TypedEvent = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];

/** Whether `data` is what the declarations allow for `type` (no field missing, none unknown). */
export function isEventData(type: EventType, data: unknown): boolean {
  return Value.Check(eventDataSchemas[type], data);
}
