/**
 * Events for tests of the outbox and its delivery, built by the declared
 * constructors (src/store/contract/event-types.ts) as the parts that record them
 * do. `tag` tells events of one type apart (it is the gateway's serial).
 */
import {
  alertReturned,
  alertStatusChanged,
  alertTriggered,
  automationTriggered,
  deviceStatusEvent,
  type EventType,
  modbusDeviceStatusEvent,
  registerWritten,
  webhookEndpointPaused,
  webhookTest,
} from "../../src/store/contract/event-types.ts";
import type { NewEvent } from "../../src/store/contract/events.ts";

const gatewayId = "0d9f3b7e-6c2a-5e41-8b3d-1f7a9c2e4b60";

/** `id`: the alert an alert event names, the audit entry of a register write. */
export function sampleEvent(
  type: EventType,
  orgId: number,
  occurredAt: number,
  tag = "FH-1",
  id = "7c4e2a10-3b5d-4f6e-8a9b-0c1d2e3f4a5b",
): NewEvent {
  const alertId = id;
  const gateway = { id: gatewayId, serial: tag, name: `Gateway ${tag}` };
  const register = {
    modbusDeviceId: "5e8f1c2d-4a3b-5c6d-9e7f-1a2b3c4d5e6f",
    modbusDeviceName: "Boiler",
    id: "a1b2c3d4-e5f6-5a7b-8c9d-0e1f2a3b4c5d",
    name: "flow_temperature",
    unit: "°C",
  };
  const subject = {
    rule: { id: "9b8a7c6d-5e4f-5a3b-8c2d-1e0f9a8b7c6d", name: "Flow too hot", severity: "warning" as const },
    source: "rule" as const,
    condition: "gt",
    gateway,
    register,
  };
  const alert = {
    uuid: alertId,
    gatewayUuid: gateway.id,
    gatewaySerial: gateway.serial,
    gatewayName: gateway.name,
    modbusDeviceUuid: register.modbusDeviceId,
    modbusDeviceName: register.modbusDeviceName,
    registerUuid: register.id,
    registerName: register.name,
    registerUnit: register.unit,
    ruleId: subject.rule.id,
    severity: subject.rule.severity,
    message: "Flow too hot",
    value: 81.5,
    ackAt: null,
  };
  const built = (() => {
    switch (type) {
      case "device.online":
      case "device.offline": {
        const next = type === "device.online" ? "online" : "offline";
        const change = deviceStatusEvent(
          { ...gateway, status: next === "online" ? "offline" : "online", lastSeen: 0 },
          next,
        );
        if (change === null) throw new Error("no status event");
        return change;
      }
      case "alert.triggered":
        return alertTriggered(alertId, subject, "Flow too hot", { value: 81.5, threshold: 80 });
      case "alert.returned":
        return alertReturned(alertId, subject, 77);
      case "alert.acknowledged":
        return alertStatusChanged(alert, "acknowledged", occurredAt, null);
      case "alert.resolved":
        return alertStatusChanged(alert, "resolved", occurredAt, "fixed");
      case "automation.triggered":
        return automationTriggered({ id: subject.rule.id, name: "Notify", actions: [{ type: "webhook" }] }, null);
      case "register.written":
        return registerWritten({
          auditId: id,
          gateway,
          register,
          actor: "key:test",
          valueBefore: 20,
          valueAsked: 22.5,
          result: "written",
          readBack: 22.5,
          detail: null,
          requestedAt: occurredAt,
          finishedAt: occurredAt,
        });
      case "modbus_device.offline":
      case "modbus_device.online":
        return modbusDeviceStatusEvent({
          gateway,
          device: { id: register.modbusDeviceId, name: register.modbusDeviceName },
          status: type === "modbus_device.online" ? "online" : "offline",
          health: type === "modbus_device.online" ? "ok" : "quarantined",
          previousHealth: type === "modbus_device.online" ? "quarantined" : "ok",
          lastError: "timeout after 1000 ms at 3:0",
          lastAnswerAt: occurredAt - 5000,
        });
      case "webhook_endpoint.paused":
        return webhookEndpointPaused({
          endpoint: { uuid: id, url: "https://hooks.example/in?token=abc", description: "Control room" },
          reason: "gone",
          failedMessages: 1,
          lastStatusCode: 410,
          pausedAt: occurredAt,
        });
      case "webhook.test":
        return webhookTest("3f0c2a9e-5d1b-4c8e-9f71-2b6a0d4e8c13");
    }
  })();
  return { orgId, occurredAt, ...built };
}
