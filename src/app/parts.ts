/**
 * The running parts behind the HTTP door: a poller per gateway feeding ingest,
 * the rules engine and gateway status; the webhook dispatcher woken by every
 * part that records an event; each part's metrics on the registry.
 */

import { alertService } from "../alerting/alerts-service.ts";
import { createRulesEngine } from "../alerting/engine.ts";
import type { FieldhubConfig } from "../config/index.ts";
import { createGatewayStatusTracker } from "../ingest/gateway-status.ts";
import { createIngest } from "../ingest/ingest.ts";
import { registerGatewayStatusMetrics, registerIngestMetrics } from "../ingest/metrics.ts";
import type { Clock } from "../lib/clock.ts";
import { CodedError } from "../lib/errors.ts";
import type { Logger } from "../lib/logger.ts";
import type { MetricsRegistry } from "../lib/metrics.ts";
import type { UplinkView } from "../lib/uplink-report.ts";
import { createDeviceHealthBoard } from "../modbus/device-health.ts";
import type { LinkOpener } from "../modbus/link.ts";
import { registerModbusMetrics } from "../modbus/metrics.ts";
import { type PollSink, startGatewayPoller } from "../modbus/poller.ts";
import { createReadCache } from "../modbus/read-cache.ts";
import type { Store } from "../store/index.ts";
import { createCentralClient } from "../uplink/central-client.ts";
import { createForwarder } from "../uplink/forwarder.ts";
import { startUplink } from "../uplink/link.ts";
import { registerUplinkMetrics } from "../uplink/metrics.ts";
import { presentUplink } from "../uplink/present.ts";
import { startDispatcher } from "../webhooks/dispatcher.ts";
import { registerWebhookMetrics } from "../webhooks/metrics.ts";
import { startModbusServers } from "./modbus-servers.ts";
import { createRegisterWriter } from "./register-writes.ts";
import {
  scheduleAutomations,
  scheduleDeliveryLogPruning,
  scheduleHistoryClose,
  scheduleRetention,
} from "./schedules.ts";

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
  const storageIntervalMs = new Map<string, number>();
  for (const gateway of config.polling) {
    for (const device of gateway.devices) {
      for (const register of device.registers) storageIntervalMs.set(register.id, device.storageIntervalMs);
    }
  }
  const ingest = await createIngest({
    store,
    clock,
    logger: logger.child({ part: "ingest" }),
    storageIntervalMs,
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
  /** Every part that records an event calls this, so the message goes out now, not at the next poll of the outbox. */
  const eventRecorded = () => dispatcher.wake();
  const rules = await createRulesEngine({
    store,
    clock,
    logger: logger.child({ part: "rules" }),
    rules: config.rules,
    offlineDetector: config.offlineDetector,
    automations: config.automations,
    onEvent: eventRecorded,
  });
  const status = await createGatewayStatusTracker({
    onEvent: eventRecorded,
    onChange: (gatewayId, next, at) => {
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
    },
    store,
    clock,
    logger: logger.child({ part: "status" }),
    gateways: polled.map((gateway) => ({ id: gateway.id, heartbeatMs: gateway.heartbeatMs })),
  });
  // Each consumer keeps and retries what the store refused; this is the last line,
  // so that nothing a consumer throws ever stops a poll channel.
  const modbusLog = logger.child({ part: "modbus" });
  const guarded =
    <A extends unknown[]>(what: string, deliver: (...args: A) => void) =>
    (...args: A): void => {
      try {
        deliver(...args);
      } catch (error) {
        modbusLog.error({ err: error }, `${what} failed; polling goes on`);
      }
    };
  const sink: PollSink = {
    // Rules see every value read, not only the ones stored.
    readings: guarded("handling readings", (_gatewayId: string, values: Parameters<PollSink["readings"]>[1]) => {
      ingest.accept(values);
      // evaluate never rejects: a refused alert write is logged and tried with the next reading.
      void rules.evaluate(values);
    }),
    // The tracker catches its own write errors: its promises never reject.
    answered: guarded("gateway status", (gatewayId: string, at: number) => void status.answered(gatewayId, at)),
    unreachable: guarded(
      "gateway status",
      (gatewayId: string, at: number, reason: string, fatal?: boolean) =>
        void status.unreachable(gatewayId, at, reason, fatal),
    ),
  };
  // Device health lives in memory, written by the pollers and read by the API (modbus/device-health.ts says why).
  const health = createDeviceHealthBoard();
  // The words each planned request last read, for the gateways' Modbus TCP servers.
  const readCache = createReadCache();
  const pollers = polled.map((gateway) =>
    startGatewayPoller({
      gateway,
      sink,
      clock,
      logger: modbusLog,
      openLink: options.openLink,
      health,
      readCache,
    }),
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

  const uplinkLog = logger.child({ part: "uplink" });
  const siteAlerts = alertService(store, () => clock.now(), eventRecorded);
  // A site with an uplink forwards to its central (docs/fleet.md); a box on its own has none.
  const central = config.uplink === null ? null : createCentralClient(config.uplink);
  const forwarder =
    central === null
      ? null
      : createForwarder({
          central,
          store,
          gateways: config.inventory.organizations.flatMap((organization) => organization.gateways),
          now: () => clock.now(),
          async applyAlertRequest({ alertId, action, note }) {
            try {
              if (action === "acknowledge") await siteAlerts.acknowledge(alertId, note);
              else await siteAlerts.resolve(alertId, note);
              uplinkLog.info({ alert_id: alertId, action }, "alert change asked on the central applied");
            } catch (error) {
              // Already acknowledged or resolved here, or gone: the alert's state, forwarded next, answers the central.
              if (!(error instanceof CodedError) || (error.code !== "conflict" && error.code !== "not_found"))
                throw error;
              uplinkLog.info(
                { alert_id: alertId, action, reason: error.message },
                "alert change asked on the central not applied",
              );
            }
          },
        });
  const uplink =
    config.uplink === null || central === null || forwarder === null
      ? null
      : startUplink({ ...config.uplink, central, clock, logger: uplinkLog, forwarder });
  if (uplink !== null && forwarder !== null) registerUplinkMetrics(metrics, uplink, forwarder, clock);

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
      () => {
        const link = uplink?.status();
        return link?.state === "refused"
          ? { ok: false as const, problem: `uplink refused by the central: ${link.reason}` }
          : { ok: true as const };
      },
    ],
    /** /healthz shows a site's link to its central (docs/fleet.md): state, reason, last contact, progress. */
    healthDetails: (): Record<string, unknown> =>
      uplink === null || forwarder === null ? {} : { uplink: presentUplink(uplink.status(), forwarder, clock.now()) },
    /**
     * The admin page's view of the same (docs/admin.md, "Central"), with the central's
     * URL: behind a session, where /healthz is open to anyone who can reach the box.
     */
    uplinkView: (): UplinkView =>
      config.uplink === null || uplink === null || forwarder === null
        ? { configured: false }
        : {
            configured: true,
            central_url: config.uplink.url,
            ...presentUplink(uplink.status(), forwarder, clock.now()),
          },
    async stop(): Promise<void> {
      await Promise.all(schedules.map((schedule) => schedule.stop()));
      await modbusServers.stop();
      // Pollers first, so nothing arrives after the last flush.
      await Promise.all(pollers.map((poller) => poller.stop()));
      await ingest.stop();
      await status.stop();
      // In-flight attempts finish and are recorded; what is left stays due in the store.
      await dispatcher.stop();
      await uplink?.stop();
    },
  };
}
