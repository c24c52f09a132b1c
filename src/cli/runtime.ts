/**
 * The running parts behind `serve` and `demo`: pollers for every gateway,
 * ingest into the store, and gateway status from what the pollers report.
 */

import { Cron } from "croner";
import { createGatewayStatusTracker } from "../ingest/gateway-status.ts";
import { createIngest } from "../ingest/ingest.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import type { PollingGateway } from "../lib/polling.ts";
import type { AutomationConfig, OfflineDetectorConfig, RuleConfig } from "../lib/rules.ts";
import { createRulesEngine, type RulesEngine } from "../rules/engine.ts";
import { findOrganizationByKey } from "../store/organizations.ts";
import type { LinkOpener } from "../modbus/link.ts";
import { type GatewayPoller, type PollSink, startGatewayPoller } from "../modbus/poller.ts";
import type { Store } from "../store/open.ts";
import { pruneReadings } from "../store/retention.ts";
import { webhookQueries } from "../store/webhooks.ts";
import { type Dispatcher, startDispatcher } from "../webhooks/dispatcher.ts";

export interface WebhookSettings {
  timeoutMs: number;
  retryDelaysMs: number[];
  pauseAfterFailedMessages: number;
  logRetentionDays: number;
}

export interface AlertingSettings {
  rules: readonly RuleConfig[];
  offlineDetector: OfflineDetectorConfig;
  automations: readonly AutomationConfig[];
}

export interface Runtime {
  dispatcher: Dispatcher;
  rules: RulesEngine;
  pollers: GatewayPoller[];
  ingest: ReturnType<typeof createIngest>;
  status: ReturnType<typeof createGatewayStatusTracker>;
  stop(): Promise<void>;
}

export function startRuntime(options: {
  store: Store;
  clock: Clock;
  logger: Logger;
  gateways: readonly PollingGateway[];
  openLink?: LinkOpener;
  flushIntervalMs?: number;
  /** Readings older than this are pruned (config `retention.readings_days`). */
  retentionDays: number;
  webhooks: WebhookSettings;
  alerting: AlertingSettings;
}): Runtime {
  const { store, clock, logger, gateways } = options;
  const storageIntervalMs = new Map<string, number>();
  for (const gateway of gateways) {
    for (const device of gateway.devices) {
      for (const register of device.registers) storageIntervalMs.set(register.id, device.storageIntervalMs);
    }
  }
  const ingest = createIngest({
    store,
    clock,
    logger: logger.child({ part: "ingest" }),
    storageIntervalMs,
    flushIntervalMs: options.flushIntervalMs,
  });
  // Gateways without devices have nothing to report: they stay as they are (pending).
  const polled = gateways.filter((gateway) => gateway.devices.length > 0);
  const dispatcher = startDispatcher({
    store,
    clock,
    logger: logger.child({ part: "webhooks" }),
    timeoutMs: options.webhooks.timeoutMs,
    retryDelaysMs: options.webhooks.retryDelaysMs,
    pauseAfterFailedMessages: options.webhooks.pauseAfterFailedMessages,
  });
  const rules = createRulesEngine({
    store,
    clock,
    logger: logger.child({ part: "rules" }),
    ...options.alerting,
    onEvent: () => dispatcher.wake(),
  });
  const status = createGatewayStatusTracker({
    onEvent: () => dispatcher.wake(),
    onChange: (gatewayId, next, at) => {
      if (next === "offline") rules.gatewayOffline(gatewayId, at);
      if (next === "online") rules.gatewayOnline(gatewayId, at);
    },
    store,
    clock,
    logger: logger.child({ part: "status" }),
    gateways: polled.map((gateway) => ({ id: gateway.id, heartbeatMs: gateway.heartbeatMs })),
  });
  const sink: PollSink = {
    // Rules see every value read, not only the ones stored.
    readings: (_gatewayId, values) => {
      ingest.accept(values);
      rules.evaluate(values);
    },
    answered: (gatewayId, at) => status.answered(gatewayId, at),
    unreachable: (gatewayId, at, reason, fatal) => status.unreachable(gatewayId, at, reason, fatal),
  };
  const pollers = polled.map((gateway) =>
    startGatewayPoller({ gateway, sink, clock, logger: logger.child({ part: "modbus" }), openLink: options.openLink }),
  );
  const retention = scheduleRetention(store, clock, logger.child({ part: "retention" }), options.retentionDays);
  // The delivery log keeps its own, shorter retention.
  const deliveryLog = new Cron("23 3 * * *", () => {
    const pruned = webhookQueries(store).pruneLog(clock.now() - options.webhooks.logRetentionDays * 86_400_000);
    logger.info({ part: "webhooks", ...pruned }, "webhook delivery log pruned");
  });
  const scheduled = options.alerting.automations.flatMap((automation) => {
    if (!automation.enabled || automation.trigger.kind !== "schedule") return [];
    const org = findOrganizationByKey(store, automation.orgKey);
    if (org === null) return [];
    return [new Cron(automation.trigger.cron, () => rules.runScheduled(automation, org.id))];
  });
  return {
    dispatcher,
    rules,
    pollers,
    ingest,
    status,
    async stop() {
      for (const job of scheduled) job.stop();
      deliveryLog.stop();
      await retention.stop();
      // Pollers first, so nothing arrives after the last flush.
      await Promise.all(pollers.map((poller) => poller.stop()));
      ingest.stop();
      status.stop();
      // In-flight attempts finish and are recorded; what is left stays due in the store.
      await dispatcher.stop();
    },
  };
}

/** Prunes history older than the retention every hour (and once a minute after start). */
function scheduleRetention(store: Store, clock: Clock, logger: Logger, retentionDays: number) {
  const abort = new AbortController();
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = running.then(async () => {
      if (abort.signal.aborted) return;
      const cutoff = clock.now() - retentionDays * 86_400_000;
      try {
        const result = await pruneReadings(store, cutoff, { signal: abort.signal });
        logger.info(
          {
            deleted: result.deleted,
            batches: result.batches,
            registers: result.registers,
            ms: Math.round(result.ms),
            older_than: new Date(cutoff).toISOString(),
          },
          "retention pruned readings",
        );
      } catch (error) {
        logger.error({ err: error }, "retention pruning failed");
      }
    });
  };
  const hourly = new Cron("17 * * * *", run);
  const first = setTimeout(run, 60_000);
  return {
    async stop() {
      abort.abort();
      hourly.stop();
      clearTimeout(first);
      await running;
    },
  };
}
