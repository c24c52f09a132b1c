/**
 * The running parts behind the HTTP door, wired by part: a poller per gateway
 * feeding ingest, the rules engine and gateway status (poll-sink.ts); the webhook
 * dispatcher woken by every part that records an event; the scheduled jobs
 * (schedules.ts); a site's uplink (uplink-part.ts); MQTT (mqtt-part.ts); register writes. Each part gets
 * only the store domains it uses, and registers its own metrics.
 */

import { createRulesEngine, type RulesEngine } from "../alerting/engine.ts";
import type { ConfigDiff, FieldhubConfig, PollingGateway } from "../config/index.ts";
import { createGatewayStatusTracker } from "../ingest/gateway-status.ts";
import { createIngest } from "../ingest/ingest.ts";
import { registerGatewayStatusMetrics, registerIngestMetrics } from "../ingest/metrics.ts";
import { createModbusDeviceStatusTracker } from "../ingest/modbus-device-status.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import { type MetricsRegistry, withOwnMetrics } from "../lib/metrics.ts";
import { createDeviceHealthBoard } from "../modbus/device-health.ts";
import type { LinkOpener } from "../modbus/link.ts";
import { registerModbusMetrics } from "../modbus/metrics.ts";
import { type GatewayPoller, startGatewayPoller } from "../modbus/poller.ts";
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
  const { store, clock, logger, metrics } = options;
  let config = options.config;
  const ingest = await createIngest({
    store,
    clock,
    logger: logger.child({ part: "ingest" }),
    storageIntervalMs: storageIntervals(config),
    flushIntervalMs: options.flushIntervalMs ?? config.storage.commitIntervalMs,
  });
  // Gateways without devices have nothing to report: they stay as they are (pending).
  // The list is kept current across reloads: the metrics read it at each scrape.
  const polled: PollingGateway[] = polledGateways(config);
  const startDispatcherPart = (settings: FieldhubConfig["webhooks"]) =>
    withOwnMetrics(metrics, () => {
      const started = startDispatcher({
        store,
        clock,
        logger: logger.child({ part: "webhooks" }),
        timeoutMs: settings.timeoutMs,
        retryDelaysMs: settings.retryDelaysMs,
        pauseAfterFailedMessages: settings.pauseAfterFailedMessages,
      });
      registerWebhookMetrics(metrics, started);
      return started;
    });
  let dispatcher = await startDispatcherPart(config.webhooks);
  // Started below, once the gateway status it shows is known; events recorded before then wait in the outbox.
  let mqtt: { part: MqttPart; release: () => void } | null = null;
  /** Every part that records an event calls this, so the message goes out now, not at the next poll of the outbox. */
  const eventRecorded = () => {
    dispatcher.part.wake();
    mqtt?.part.eventRecorded();
  };
  const startRules = (next: FieldhubConfig) =>
    createRulesEngine({
      store,
      clock,
      logger: logger.child({ part: "rules" }),
      rules: next.rules,
      offlineDetector: next.offlineDetector,
      automations: next.automations,
      onEvent: eventRecorded,
    });
  let rules = await startRules(config);
  /** While a reload replaces the engine: the new one, for the values read meanwhile (evaluated in order, by it). */
  let nextRules: Promise<RulesEngine> | null = null;
  const detectOffline = offlineDetection(() => rules, logger);
  const status = await createGatewayStatusTracker({
    store,
    clock,
    logger: logger.child({ part: "status" }),
    gateways: trackedGateways(polled),
    onEvent: eventRecorded,
    onChange: (gatewayId, next, at) => {
      mqtt?.part.gatewayChanged(gatewayId, next);
      detectOffline(gatewayId, next, at);
    },
  });
  const modbusDevices = await createModbusDeviceStatusTracker({
    store,
    clock,
    logger: logger.child({ part: "status" }),
    gateways: trackedDevices(polled),
    gatewayStatus: (gatewayId) => status.statusOf(gatewayId),
    onEvent: eventRecorded,
    onChange: (change, at) => {
      mqtt?.part.modbusDeviceChanged(change.device.id, change.status);
      rules.modbusDeviceChanged(change, at).catch((error: unknown) => {
        // The device's event is written; only the offline detector's alert is lost to a full disk.
        logger.error({ err: error, device: change.device.id }, "offline detector write failed");
      });
    },
  });
  const startMqttLink = (next: FieldhubConfig) =>
    withOwnMetrics(metrics, () =>
      startMqttPart({
        config: next,
        store,
        clock,
        logger: logger.child({ part: "mqtt" }),
        metrics,
        gatewayStatus: (gatewayId) => status.statusOf(gatewayId),
        modbusDeviceOffline: (deviceId) => modbusDevices.isOffline(deviceId),
      }),
    );
  mqtt = await startMqttLink(config);
  const modbusLog = logger.child({ part: "modbus" });
  // The parts a reload may replace are looked up at each report, never held.
  const sink = pollSink({
    ingest,
    rules: {
      evaluate: (values) =>
        nextRules === null ? rules.evaluate(values) : nextRules.then((engine) => engine.evaluate(values)),
    },
    status,
    modbusDevices,
    mqtt: { offer: (values) => mqtt?.part.offer(values) },
    logger: modbusLog,
  });
  // Device health lives in memory, written by the pollers and read by the API (modbus/device-health.ts says why).
  const health = createDeviceHealthBoard();
  // The words each planned request last read, for the gateways' Modbus TCP servers.
  const readCache = createReadCache();
  // One list for the whole run: metrics, register writes and the Modbus servers find the current pollers in it.
  const pollers: GatewayPoller[] = [];
  const startPoller = (gateway: PollingGateway) =>
    pollers.push(
      startGatewayPoller({ gateway, sink, clock, logger: modbusLog, openLink: options.openLink, health, readCache }),
    );
  for (const gateway of polled) startPoller(gateway);
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
  const startRetention = (days: number) => scheduleRetention(store, clock, logger.child({ part: "retention" }), days);
  const startLogPruning = (days: number) =>
    scheduleDeliveryLogPruning(store, clock, logger.child({ part: "webhooks" }), days);
  const startAutomations = (next: FieldhubConfig) =>
    scheduleAutomations(store, rules, next.automations, logger.child({ part: "automations" }));
  const schedules = {
    retention: startRetention(config.retention.readingsDays),
    historyClose: scheduleHistoryClose(store, clock, logger.child({ part: "history" })),
    logPruning: startLogPruning(config.webhooks.logRetentionDays),
    automations: await startAutomations(config),
  };

  const serialOf = new Map<string, string>();
  const nameSerials = () => {
    serialOf.clear();
    for (const gateway of polled) serialOf.set(gateway.id, gateway.serial);
  };
  nameSerials();
  registerModbusMetrics(metrics, pollers, serialOf);
  registerGatewayStatusMetrics(metrics, status, polled);
  registerIngestMetrics(metrics, ingest);

  const startUplinkLink = (next: FieldhubConfig) =>
    withOwnMetrics(metrics, () =>
      startUplinkPart({
        config: next,
        store,
        clock,
        logger: logger.child({ part: "uplink" }),
        metrics,
        onEvent: eventRecorded,
        modbusDevices,
      }),
    );
  let uplink = await startUplinkLink(config);
  const writeRegister = createRegisterWriter({
    store,
    clock,
    logger: logger.child({ part: "writes" }),
    pollers,
    onEvent: eventRecorded,
  });

  /**
   * Applies a checked config that differs from the running one by `diff` (the
   * store's inventory already synced with it): each part the change concerns is
   * brought in line, and nothing else is touched. A gateway whose polling did not
   * change keeps its poller; a changed one is stopped and started alone
   * (docs/config.md, "Reloading the config").
   */
  async function reload(next: FieldhubConfig, diff: ConfigDiff): Promise<void> {
    const restart = new Set([...diff.gateways.removed, ...diff.gateways.changed]);
    const leaving = pollers.filter((poller) => restart.has(poller.gatewayId));
    await Promise.all(leaving.map((poller) => poller.stop()));
    for (const poller of leaving) pollers.splice(pollers.indexOf(poller), 1);
    // Ingest knows the new registers before a poller reads them.
    await ingest.track(storageIntervals(next));
    polled.splice(0, polled.length, ...polledGateways(next));
    nameSerials();
    await status.track(trackedGateways(polled));
    await modbusDevices.track(trackedDevices(polled));
    if (diff.sections.rules || diff.sections.inventory) {
      // The engine reads the rules' registers and the open alerts from the store when
      // made: after the old one wrote what it was evaluating; values read meanwhile wait for it.
      const previous = rules;
      const made = previous.settled().then(() => startRules(next));
      nextRules = made;
      try {
        rules = await made;
      } finally {
        nextRules = null;
      }
      await schedules.automations.stop();
      schedules.automations = await startAutomations(next);
    }
    // The links restart only for their own settings (below); a new inventory is taken on
    // the same connections (docs/config.md, "Reloading the config"), before the changed
    // gateways poll again, so their first values find their registers.
    const mqttTouched = diff.sections.mqtt || (next.mqtt !== null && diff.sections.published);
    const mqttInPlace = mqttTouched && mqtt?.part.keepsLinkWith(next) === true;
    if (mqttInPlace) mqtt?.part.retarget(next);
    if (!diff.sections.uplink && diff.sections.published) uplink.part.retarget(next);
    // The changed and new gateways poll again as soon as ingest and the rules know their registers.
    const serialIn = (gateways: readonly PollingGateway[], id: string) =>
      gateways.find((gateway) => gateway.id === id)?.serial ?? id;
    for (const id of diff.gateways.removed)
      modbusLog.info({ gateway: serialIn(config.polling, id) }, "config reload: gateway removed, polling stopped");
    for (const gateway of polled) {
      if (pollers.some((poller) => poller.gatewayId === gateway.id)) continue;
      startPoller(gateway);
      const how = diff.gateways.changed.includes(gateway.id) ? "restarted with its changed config" : "started";
      modbusLog.info({ gateway: gateway.serial }, `config reload: gateway polling ${how}`);
    }
    if (mqttTouched && !mqttInPlace) {
      const previous = mqtt;
      mqtt = null;
      await previous?.part.stop();
      previous?.release();
      mqtt = await startMqttLink(next);
    }
    if (diff.sections.uplink) {
      await uplink.part.stop();
      uplink.release();
      uplink = await startUplinkLink(next);
    }
    if (diff.sections.retention) {
      await schedules.retention.stop();
      schedules.retention = startRetention(next.retention.readingsDays);
    }
    if (diff.sections.webhooks) {
      // In-flight attempts finish and are recorded by the old dispatcher; the new one takes what is due.
      await dispatcher.part.stop();
      dispatcher.release();
      dispatcher = await startDispatcherPart(next.webhooks);
      await schedules.logPruning.stop();
      schedules.logPruning = startLogPruning(next.webhooks.logRetentionDays);
    }
    const serversRestart = new Set([...diff.modbusServers.changed, ...diff.gateways.changed]);
    await modbusServers.reload(next, serversRestart);
    config = next;
  }

  return {
    eventRecorded,
    deviceHealth: health.reader,
    modbusServerView: modbusServers.view,
    writeRegister,
    reload,
    /** The config the parts run now. */
    config: () => config,
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
      () => uplink.part.healthCheck(),
      () => mqtt?.part.healthCheck() ?? { ok: true as const },
    ],
    healthDetails: (): Record<string, unknown> => ({
      ...uplink.part.healthDetails(),
      ...mqtt?.part.healthDetails(),
    }),
    uplinkView: () => uplink.part.uplinkView(),
    mqttView: (): ReturnType<MqttPart["view"]> => mqtt?.part.view() ?? Promise.resolve({ configured: false }),
    async stop(): Promise<void> {
      await Promise.all(Object.values(schedules).map((schedule) => schedule.stop()));
      await modbusServers.stop();
      // Pollers first, so nothing arrives after the last flush.
      await Promise.all(pollers.map((poller) => poller.stop()));
      await ingest.stop();
      await status.stop();
      await modbusDevices.stop();
      await mqtt?.part.stop();
      // In-flight attempts finish and are recorded; what is left stays due in the store.
      await dispatcher.part.stop();
      await uplink.part.stop();
    },
  };
}

function polledGateways(config: FieldhubConfig): PollingGateway[] {
  return config.polling.filter((gateway) => gateway.devices.length > 0);
}

function trackedGateways(polled: readonly PollingGateway[]) {
  return polled.map((gateway) => ({ id: gateway.id, heartbeatMs: gateway.heartbeatMs }));
}

function trackedDevices(polled: readonly PollingGateway[]) {
  return polled.map((gateway) => ({
    id: gateway.id,
    heartbeatMs: gateway.heartbeatMs,
    devices: gateway.devices.map((device) => ({ id: device.id, name: device.name })),
  }));
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
function offlineDetection(rulesNow: () => RulesEngine, logger: Logger) {
  return (gatewayId: string, next: string, at: number): void => {
    const rules = rulesNow();
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
