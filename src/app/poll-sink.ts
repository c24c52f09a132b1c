/**
 * What the pollers report, handed to the parts that take it: values to ingest
 * and the rules engine (rules see every value read, not only the ones stored) and
 * MQTT (which keeps them in memory and returns),
 * answers and silences to the gateway status tracker, each Modbus device's health
 * changes to the Modbus device status tracker.
 */
import type { RulesEngine } from "../alerting/engine.ts";
import type { GatewayStatusTracker } from "../ingest/gateway-status.ts";
import type { Ingest } from "../ingest/ingest.ts";
import type { ModbusDeviceStatusTracker } from "../ingest/modbus-device-status.ts";
import type { Logger } from "../lib/logger.ts";
import type { PollSink } from "../modbus/poller.ts";
import type { MqttPart } from "./mqtt-part.ts";

export function pollSink(parts: {
  ingest: Pick<Ingest, "accept">;
  rules: Pick<RulesEngine, "evaluate">;
  status: Pick<GatewayStatusTracker, "answered" | "unreachable">;
  modbusDevices: Pick<ModbusDeviceStatusTracker, "healthChanged">;
  mqtt: Pick<MqttPart, "offer">;
  logger: Logger;
}): PollSink {
  const { ingest, rules, status, modbusDevices, mqtt, logger } = parts;
  // Each consumer keeps and retries what the store refused; this is the last line,
  // so that nothing a consumer throws ever stops a poll channel.
  const guarded =
    <A extends unknown[]>(what: string, deliver: (...args: A) => void) =>
    (...args: A): void => {
      try {
        deliver(...args);
      } catch (error) {
        logger.error({ err: error }, `${what} failed; polling goes on`);
      }
    };
  return {
    readings: guarded("handling readings", (_gatewayId: string, values: Parameters<PollSink["readings"]>[1]) => {
      ingest.accept(values);
      // evaluate never rejects: a refused alert write is logged and tried with the next reading.
      void rules.evaluate(values);
      // Returns at once: values wait in memory and go out from a timer (mqtt/values.ts).
      mqtt.offer(values);
    }),
    // The tracker catches its own write errors: its promises never reject.
    answered: guarded("gateway status", (gatewayId: string, at: number) => void status.answered(gatewayId, at)),
    unreachable: guarded(
      "gateway status",
      (gatewayId: string, at: number, reason: string, fatal?: boolean) =>
        void status.unreachable(gatewayId, at, reason, fatal),
    ),
    deviceHealth: guarded("Modbus device status", (_gatewayId: string, deviceId: string, _previous, health) =>
      modbusDevices.healthChanged(deviceId, health),
    ),
  };
}
