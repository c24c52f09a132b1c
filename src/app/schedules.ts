/**
 * The appliance's clock-driven jobs (croner): readings retention, closing
 * history periods into compressed blocks, delivery-log pruning and scheduled
 * automations.
 */
import { Cron } from "croner";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import type { AutomationConfig } from "../alerting/rule-model.ts";
import type { RulesEngine } from "../alerting/engine.ts";
import type { Store } from "../store/index.ts";
import { pruneReadings } from "../store/retention.ts";

export interface Schedule {
  stop(): Promise<void>;
}

/** Prunes history older than the retention every hour (and once a minute after start). */
export function scheduleRetention(store: Store, clock: Clock, logger: Logger, retentionDays: number): Schedule {
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

/**
 * Once a minute, encodes the history periods that ended into compressed blocks
 * (store/history/; a day's period closes ten minutes after midnight UTC) and
 * persists the latest values when due.
 */
export function scheduleHistoryClose(store: Store, clock: Clock, logger: Logger): Schedule {
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = running.then(async () => {
      try {
        const began = performance.now();
        const closed = await store.readings.closePeriods(clock.now());
        if (closed > 0) logger.info({ periods: closed, ms: Math.round(performance.now() - began) }, "history closed");
      } catch (error) {
        logger.error({ err: error }, "closing history periods failed; will retry");
      }
    });
  };
  const minutely = new Cron("* * * * *", run);
  return {
    async stop() {
      minutely.stop();
      await running;
    },
  };
}

/** The delivery log keeps its own, shorter retention (config `webhooks.log_retention_days`); pruned nightly. */
export function scheduleDeliveryLogPruning(
  store: Store,
  clock: Clock,
  logger: Logger,
  logRetentionDays: number,
): Schedule {
  const nightly = new Cron("23 3 * * *", () => {
    const pruned = store.webhooks.pruneLog(clock.now() - logRetentionDays * 86_400_000);
    logger.info({ ...pruned }, "webhook delivery log pruned");
  });
  return {
    async stop() {
      nightly.stop();
    },
  };
}

/** Runs each enabled automation with a schedule trigger at its cron times. */
export function scheduleAutomations(
  store: Store,
  rules: RulesEngine,
  automations: readonly AutomationConfig[],
): Schedule {
  const jobs = automations.flatMap((automation) => {
    if (!automation.enabled || automation.trigger.kind !== "schedule") return [];
    const org = store.organizations.findByKey(automation.orgKey);
    if (org === null) return [];
    return [new Cron(automation.trigger.cron, () => rules.runScheduled(automation, org.id))];
  });
  return {
    async stop() {
      for (const job of jobs) job.stop();
    },
  };
}
