/**
 * The running parts behind `serve` and `demo`: pollers for every gateway,
 * ingest into the store, and gateway status from what the pollers report.
 */

import { Cron } from "croner";
import { createGatewayStatusTracker } from "../ingest/gateway-status.ts";
import { createIngest } from "../ingest/ingest.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import { countedFrom, gaugedFrom, type MetricsRegistry } from "../lib/metrics.ts";
import type { PollingGateway } from "../lib/polling.ts";
import type { AutomationConfig, OfflineDetectorConfig, RuleConfig } from "../lib/rules.ts";
import type { LinkOpener } from "../modbus/link.ts";
import { type GatewayPoller, type PollSink, startGatewayPoller } from "../modbus/poller.ts";
import { createRulesEngine, type RulesEngine } from "../rules/engine.ts";
import type { Store } from "../store/index.ts";
import { pruneReadings } from "../store/retention.ts";
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
  /** For /healthz: ingest must be able to write. */
  healthChecks: (() => { ok: true } | { ok: false; problem: string })[];
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
  metrics?: MetricsRegistry;
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
    const pruned = store.webhooks.pruneLog(clock.now() - options.webhooks.logRetentionDays * 86_400_000);
    logger.info({ part: "webhooks", ...pruned }, "webhook delivery log pruned");
  });
  const scheduled = options.alerting.automations.flatMap((automation) => {
    if (!automation.enabled || automation.trigger.kind !== "schedule") return [];
    const org = store.organizations.findByKey(automation.orgKey);
    if (org === null) return [];
    return [new Cron(automation.trigger.cron, () => rules.runScheduled(automation, org.id))];
  });
  if (options.metrics !== undefined)
    registerMetrics(options.metrics, { pollers, ingest, dispatcher, status, gateways: polled });
  return {
    healthChecks: [
      () => {
        const error = ingest.stats().writeError;
        return error === null ? { ok: true } : { ok: false, problem: `ingest cannot write: ${error}` };
      },
    ],
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
        const result = await pruneReadings(store.readings, cutoff, { signal: abort.signal });
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

/** What /metrics reports of the running parts (Prometheus names, read at each scrape). */
function registerMetrics(
  registry: MetricsRegistry,
  parts: {
    pollers: GatewayPoller[];
    ingest: ReturnType<typeof createIngest>;
    dispatcher: Dispatcher;
    status: ReturnType<typeof createGatewayStatusTracker>;
    gateways: readonly PollingGateway[];
  },
): void {
  const serialOf = new Map(parts.gateways.map((gateway) => [gateway.id, gateway.serial]));
  const perBus = (read: (stats: ReturnType<GatewayPoller["stats"]>) => number) => () =>
    parts.pollers.map((poller) => ({
      labels: { gateway: serialOf.get(poller.gatewayId) ?? poller.gatewayId },
      value: read(poller.stats()),
    }));
  countedFrom(
    registry,
    "fieldhub_modbus_requests_total",
    "Modbus requests sent, per gateway (bus)",
    ["gateway"],
    perBus((stats) => stats.requests),
  );
  countedFrom(
    registry,
    "fieldhub_modbus_errors_total",
    "Modbus requests that failed (timeout, exception, connection)",
    ["gateway"],
    perBus((stats) => stats.errors),
  );
  countedFrom(
    registry,
    "fieldhub_modbus_timeouts_total",
    "Modbus requests without an answer in time",
    ["gateway"],
    perBus((stats) => stats.timeouts),
  );
  countedFrom(
    registry,
    "fieldhub_modbus_exceptions_total",
    "Modbus exception answers",
    ["gateway"],
    perBus((stats) => stats.exceptions),
  );
  countedFrom(
    registry,
    "fieldhub_modbus_reconnects_total",
    "Failed connection attempts",
    ["gateway"],
    perBus((stats) => stats.reconnects),
  );
  countedFrom(
    registry,
    "fieldhub_modbus_round_trip_seconds_sum",
    "Sum of request round-trip times (divide by requests for the mean)",
    ["gateway"],
    perBus((stats) => stats.rttTotalMs / 1000),
  );
  gaugedFrom(registry, "fieldhub_gateway_online", "1 when the gateway is online", ["gateway"], () =>
    parts.gateways.map((gateway) => ({
      labels: { gateway: gateway.serial },
      value: parts.status.statusOf(gateway.id) === "online" ? 1 : 0,
    })),
  );
  const ingest = (read: (stats: ReturnType<typeof parts.ingest.stats>) => number) => () => [
    { labels: {}, value: read(parts.ingest.stats()) },
  ];
  countedFrom(
    registry,
    "fieldhub_ingest_readings_total",
    "Readings handed to ingest",
    [],
    ingest((stats) => stats.accepted),
  );
  countedFrom(
    registry,
    "fieldhub_ingest_stored_total",
    "Readings stored (committed)",
    [],
    ingest((stats) => stats.committed),
  );
  countedFrom(
    registry,
    "fieldhub_ingest_dropped_total",
    "Readings dropped because the queue was full",
    [],
    ingest((stats) => stats.dropped),
  );
  countedFrom(
    registry,
    "fieldhub_ingest_batches_total",
    "Write transactions",
    [],
    ingest((stats) => stats.batches),
  );
  gaugedFrom(
    registry,
    "fieldhub_ingest_queue_readings",
    "Readings waiting to be written",
    [],
    ingest((stats) => stats.queued),
  );
  gaugedFrom(
    registry,
    "fieldhub_ingest_lag_seconds",
    "Age of the oldest reading waiting to be written",
    [],
    ingest((stats) => stats.lagMs / 1000),
  );
  gaugedFrom(
    registry,
    "fieldhub_ingest_last_batch_seconds",
    "Duration of the last write transaction",
    [],
    ingest((stats) => stats.lastBatchMs / 1000),
  );
  const webhooks = (read: (stats: ReturnType<Dispatcher["stats"]>) => number) => () => [
    { labels: {}, value: read(parts.dispatcher.stats()) },
  ];
  countedFrom(
    registry,
    "fieldhub_webhook_attempts_total",
    "Delivery attempts",
    [],
    webhooks((stats) => stats.attempts),
  );
  countedFrom(
    registry,
    "fieldhub_webhook_delivered_total",
    "Messages delivered",
    [],
    webhooks((stats) => stats.delivered),
  );
  countedFrom(
    registry,
    "fieldhub_webhook_failed_attempts_total",
    "Attempts that failed",
    [],
    webhooks((stats) => stats.failedAttempts),
  );
  countedFrom(
    registry,
    "fieldhub_webhook_failed_messages_total",
    "Messages that failed every attempt",
    [],
    webhooks((stats) => stats.failedMessages),
  );
  gaugedFrom(registry, "fieldhub_webhook_queue_messages", "Messages due or waiting for a retry", [], () => [
    { labels: {}, value: parts.dispatcher.pending() },
  ]);
  gaugedFrom(
    registry,
    "fieldhub_webhook_in_flight",
    "Attempts in progress",
    [],
    webhooks((stats) => stats.inFlight),
  );
}
