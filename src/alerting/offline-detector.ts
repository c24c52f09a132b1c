/**
 * The offline detector (docs/api.md section 3: alert source `detector`; docs/alerts.md):
 * a gateway that goes offline opens its offline alert, one that reports again
 * lets it return. With `offline_alerts.devices`, a Modbus device announced offline
 * behind an online gateway (`modbus_device.offline`) opens an alert of its own, and
 * its `modbus_device.online` lets it return. Each change is written with its event
 * (and the automations on the detector) by one store operation.
 */
import { randomUuid, stableUuid } from "../lib/ids.ts";
import { type AlertSubject, alertReturned, type ModbusDeviceChange } from "../store/contract/event-types.ts";
import type { Store } from "../store/index.ts";
import { deviceOfflineMessage, offlineMessage } from "./messages.ts";
import { gatewayNames } from "./rule-alerts.ts";
import type { OfflineDetectorConfig } from "./rule-model.ts";
import type { TriggeredEvents } from "./triggered-events.ts";

export interface DetectedGateway {
  id: number;
  uuid: string;
  orgId: number;
  serial: string;
  name: string;
}

export function createOfflineDetector(options: {
  store: Pick<Store, "alerts">;
  detector: OfflineDetectorConfig;
  /** The gateways it watches, by public id. */
  gateways: ReadonlyMap<string, DetectedGateway>;
  triggeredEvents: TriggeredEvents;
}) {
  const { detector, gateways } = options;
  const { alerts } = options.store;

  function gatewayOf(gatewayUuid: string): DetectedGateway {
    const gateway = gateways.get(gatewayUuid);
    if (gateway === undefined) throw new Error(`the offline detector does not watch gateway ${gatewayUuid}`);
    return gateway;
  }
  const subjectOf = (gateway: DetectedGateway): AlertSubject => ({
    rule: { id: detector.id, name: detector.name, severity: detector.severity },
    source: "detector",
    condition: "offline",
    gateway: gatewayNames(gateway),
    register: null,
  });
  /**
   * A Modbus device's offline alert: the detector's, under a rule id derived from
   * the detector's and the device's, so that each device has its own open alert
   * beside its gateway's (docs/alerts.md).
   */
  const deviceSubjectOf = (gateway: DetectedGateway, device: ModbusDeviceChange["device"]): AlertSubject => ({
    ...subjectOf(gateway),
    rule: {
      id: stableUuid("rule", detector.id, "modbus-device", device.id),
      name: detector.name,
      severity: detector.severity,
    },
    modbusDevice: device,
  });

  function open(gateway: DetectedGateway, subject: AlertSubject, message: string, at: number): Promise<unknown> {
    const trigger = {
      ruleId: subject.rule.id,
      gatewayId: gateway.id,
      registerUuid: null,
      orgId: gateway.orgId,
      severity: detector.severity,
      message,
      value: null,
      at,
      newUuid: randomUuid(),
    };
    return alerts.trigger(trigger, options.triggeredEvents(subject, gateway.orgId, at, message, null));
  }
  function markReturned(gateway: DetectedGateway, subject: AlertSubject, at: number): Promise<unknown> {
    return alerts.markReturned({ ruleId: subject.rule.id, gatewayId: gateway.id, at, value: null }, (alertId) => [
      { orgId: gateway.orgId, occurredAt: at, ...alertReturned(alertId, subject, null) },
    ]);
  }

  return {
    /** Whether a status change of this gateway concerns the detector (it is enabled and knows the gateway). */
    watches: (gatewayUuid: string): boolean => detector.enabled && gateways.has(gatewayUuid),
    /** Whether a change of a Modbus device of this gateway concerns it (`offline_alerts.devices`). */
    watchesDevicesOf: (gatewayUuid: string): boolean =>
      detector.enabled && detector.devices && gateways.has(gatewayUuid),

    /** The gateway went offline: its offline alert opens (or re-triggers). */
    opened(gatewayUuid: string, at: number): Promise<unknown> {
      const gateway = gatewayOf(gatewayUuid);
      return open(gateway, subjectOf(gateway), offlineMessage(gateway.name), at);
    },

    /** The gateway reports again: its offline alert returns. */
    returned(gatewayUuid: string, at: number): Promise<unknown> {
      const gateway = gatewayOf(gatewayUuid);
      return markReturned(gateway, subjectOf(gateway), at);
    },

    /** A Modbus device's `modbus_device.offline` opens its alert, its `modbus_device.online` lets it return. */
    deviceChanged(change: ModbusDeviceChange, at: number): Promise<unknown> {
      const gateway = gatewayOf(change.gateway.id);
      const subject = deviceSubjectOf(gateway, change.device);
      if (change.status === "online") return markReturned(gateway, subject, at);
      return open(gateway, subject, deviceOfflineMessage(change.device.name ?? change.device.id, gateway.name), at);
    },
  };
}
