/**
 * The running parts behind the HTTP door, wired by part: a poller per gateway
 * feeding ingest, the rules engine and gateway status (poll-sink.ts); the webhook
 * dispatcher woken by every part that records an event; the scheduled jobs
 * (schedules.ts); a site's uplink (uplink-part.ts); MQTT (mqtt-part.ts); register writes. Each part gets
 * only the store domains it uses, and registers its own metrics.
 */

import { createRulesEngine, type RulesEngine } from "../alerting/engine.ts";
import type { FieldhubConfig } from "../config/index.ts";
import { createGatewayStatusTracker } from "../ingest/gateway-status.ts";
import { createIngest } from "../ingest/ingest.ts";
import { registerGatewayStatusMetrics, registerIngestMetrics } from "../ingest/metrics.ts";
import { createModbusDeviceStatusTracker } from "../ingest/modbus-device-status.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import type { MetricsRegistry } from "../lib/metrics.ts";
import { createDeviceHealthBoard } from "../modbus/device-health.ts";
import type { LinkOpener } from "../modbus/link.ts";
import { registerModbusMetrics } from "../modbus/metrics.ts";
import { startGatewayPoller } from "../modbus/poller.ts";
import { createReadCache } from "../modbus/read-cache.ts";
import type { Store } from "../store/index.ts";
import { startDispatcher } from "../webhooks/dispatcher.ts";
import { registerWebhookMetrics } from "../webhooks/metrics.ts";
import { startModbusServers } from "./modbus-servers.ts";
import { type MqttPart, startMqttPart } from "./mqtt-part.ts";
import { pollSink } from "./poll-sink.ts";
import { createRegisterWriter } from "./register-writes.ts";
import {
  scheduleAutomations,
  scheduleDeliveryLogPruning,
  scheduleHistoryClose,
  scheduleRetention,
} from "./schedules.ts";
import { startUplinkPart } from "./uplink-part.ts";

export interface PartsOptions {
  config: FieldhubConfig;
  store: Store;
  clock: Clock;
  logger: Logger;
  metrics: MetricsRegistry;
  openLink?: LinkOpener;
  flushIntervalMs?: number;
}

export async function startParts(options: PartsOptions) {
  const { config, store, clock, logger, metrics } = options;
  const ingest = await createIngest({
    store,
    clock,
    logger: logger.child({ part: "ingest" }),
    storageIntervalMs: storageIntervals(config),
    flushIntervalMs: options.flushIntervalMs ?? config.storage.commitIntervalMs,
  });
  // Gateways without devices have nothing to report: they stay as they are (pending).
  const polled = config.polling.filter((gateway) => gateway.devices.length > 0);
  const dispatcher = startDispatcher({
    store,
    clock,
    logger: logger.child({ part: "webhooks" }),
    timeoutMs: config.webhooks.timeoutMs,
    retryDelaysMs: config.webhooks.retryDelaysMs,
    pauseAfterFailedMessages: config.webhooks.pauseAfterFailedMessages,
  });
  // Started below, once the gateway status it shows is known; events recorded before then wait in the outbox.
  let mqtt: MqttPart | null = null;
  /** Every part that records an event calls this, so the message goes out now, not at the next poll of the outbox. */
  const eventRecorded = () => {
    dispatcher.wake();
    mqtt?.eventRecorded();
  };
  const rules = await createRulesEngine({
    store,
    clock,
    logger: logger.child({ part: "rules" }),
    rules: config.rules,
    offlineDetector: config.offlineDetector,
    automations: config.automations,
    onEvent: eventRecorded,
  });
  const detectOffline = offlineDetection(rules, logger);
  const status = await createGatewayStatusTracker({
    store,
    clock,
    logger: logger.child({ part: "status" }),
    gateways: polled.map((gateway) => ({ id: gateway.id, heartbeatMs: gateway.heartbeatMs })),
    onEvent: eventRecorded,
    onChange: (gatewayId, next, at) => {
      mqtt?.gatewayChanged(gatewayId, next);
      detectOffline(gatewayId, next, at);
    },
  });
  const modbusDevices = await createModbusDeviceStatusTracker({
    store,
    clock,
    logger: logger.child({ part: "status" }),
    gateways: polled.map((gateway) => ({
      id: gateway.id,
      heartbeatMs: gateway.heartbeatMs,
      devices: gateway.devices.map((device) => ({ id: device.id, name: device.name })),
    })),
    gatewayStatus: (gatewayId) => status.statusOf(gatewayId),
    onEvent: eventRecorded,
    onChange: (change, at) => {
      mqtt?.modbusDeviceChanged(change.device.id, change.status);
      rules.modbusDeviceChanged(change, at).catch((error: unknown) => {
        // The device's event is written; only the offline detector's alert is lost to a full disk.
        logger.error({ err: error, device: change.device.id }, "offline detector write failed");
      });
    },
  });
  const mqttPart = await startMqttPart({
    config,
    store,
    clock,
    logger: logger.child({ part: "mqtt" }),
    metrics,
    gatewayStatus: (gatewayId) => status.statusOf(gatewayId),
    modbusDeviceOffline: (deviceId) => modbusDevices.isOffline(deviceId),
  });
  mqtt = mqttPart;
  const modbusLog = logger.child({ part: "modbus" });
  const sink = pollSink({ ingest, rules, status, modbusDevices, mqtt: mqttPart, logger: modbusLog });
  // Device health lives in memory, written by the pollers and read by the API (modbus/device-health.ts says why).
  const health = createDeviceHealthBoard();
  // The words each planned request last read, for the gateways' Modbus TCP servers.
  const readCache = createReadCache();
  const pollers = polled.map((gateway) =>
    startGatewayPoller({ gateway, sink, clock, logger: modbusLog, openLink: options.openLink, health, readCache }),
  );
  const modbusServers = startModbusServers({
    config,
    pollers,
    readCache,
    health: health.reader,
    store,
    clock,
    logger,
    metrics,
    onEvent: eventRecorded,
  });
  const schedules = [
    scheduleRetention(store, clock, logger.child({ part: "retention" }), config.retention.readingsDays),
    scheduleHistoryClose(store, clock, logger.child({ part: "history" })),
    scheduleDeliveryLogPruning(store, clock, logger.child({ part: "webhooks" }), config.webhooks.logRetentionDays),
    await scheduleAutomations(store, rules, config.automations, logger.child({ part: "automations" })),
  ];

  registerModbusMetrics(metrics, pollers, new Map(polled.map((gateway) => [gateway.id, gateway.serial])));
  registerGatewayStatusMetrics(metrics, status, polled);
  registerIngestMetrics(metrics, ingest);
  registerWebhookMetrics(metrics, dispatcher);

  const uplink = startUplinkPart({
    config,
    store,
    clock,
    logger: logger.child({ part: "uplink" }),
    metrics,
    onEvent: eventRecorded,
  });
  const writeRegister = createRegisterWriter({
    store,
    clock,
    logger: logger.child({ part: "writes" }),
    pollers,
    onEvent: eventRecorded,
  });

  return {
    eventRecorded,
    deviceHealth: health.reader,
    modbusServerView: modbusServers.view,
    writeRegister,
    /**
     * For /healthz: ingest must be able to write; an uplink must not be refused (an
     * unreachable central is an outage the site rides out, not a fault of the site).
     */
    healthChecks: [
      () => {
        const error = ingest.stats().writeError;
        return error === null
          ? { ok: true as const }
          : { ok: false as const, problem: `ingest cannot write: ${error}` };
      },
      uplink.healthCheck,
      mqttPart.healthCheck,
    ],
    healthDetails: (): Record<string, unknown> => ({ ...uplink.healthDetails(), ...mqttPart.healthDetails() }),
    uplinkView: uplink.uplinkView,
    mqttView: mqttPart.view,
    async stop(): Promise<void> {
      await Promise.all(schedules.map((schedule) => schedule.stop()));
      await modbusServers.stop();
      // Pollers first, so nothing arrives after the last flush.
      await Promise.all(pollers.map((poller) => poller.stop()));
      await ingest.stop();
      await status.stop();
      await modbusDevices.stop();
      await mqttPart.stop();
      // In-flight attempts finish and are recorded; what is left stays due in the store.
      await dispatcher.stop();
      await uplink.stop();
    },
  };
}

/** Each register's storage period (ms), from its Modbus device. */
function storageIntervals(config: FieldhubConfig): Map<string, number> {
  const intervals = new Map<string, number>();
  for (const gateway of config.polling) {
    for (const device of gateway.devices) {
      for (const register of device.registers) intervals.set(register.id, device.storageIntervalMs);
    }
  }
  return intervals;
}

/** The offline detector listens to gateway status: offline opens its alert, online lets it return. */
function offlineDetection(rules: RulesEngine, logger: Logger) {
  return (gatewayId: string, next: string, at: number): void => {
    const detected =
      next === "offline"
        ? rules.gatewayOffline(gatewayId, at)
        : next === "online"
          ? rules.gatewayOnline(gatewayId, at)
          : null;
    detected?.catch((error: unknown) => {
      // The status change is written; only the offline detector's alert is lost to a full disk.
      logger.error({ err: error, gateway: gatewayId }, "offline detector write failed");
    });
  };
}
