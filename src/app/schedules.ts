/**
 * The appliance's clock-driven jobs (croner): readings retention, delivery-log
 * pruning and scheduled automations.
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
        // The write audit is kept like history (issue 19).
        let auditDeleted = 0;
        for (
          let batch = store.writes.deleteOlderThan(cutoff, 5000);
          batch > 0;
          batch = store.writes.deleteOlderThan(cutoff, 5000)
        ) {
          auditDeleted += batch;
          if (abort.signal.aborted) break;
        }
        if (auditDeleted > 0) logger.info({ deleted: auditDeleted }, "retention pruned register writes");
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

/** The delivery log keeps its own, shorter retention (config `webhooks.log_retention_days`); pruned nightly. */
export function scheduleDeliveryLogPruning(
  store: Store,
  clock: Clock,
  logger: Logger,
  logRetentionDays: number,
): Schedule {
  const nightly = new Cron("23 3 * * *", () => {
    try {
      const pruned = store.webhooks.pruneLog(clock.now() - logRetentionDays * 86_400_000);
      logger.info({ ...pruned }, "webhook delivery log pruned");
    } catch (error) {
      // A full disk or a held lock: the next night prunes what is older then (issue 16, defect 1).
      logger.error({ err: error }, "webhook delivery log pruning failed; tried again next night");
    }
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
  logger: Logger,
): Schedule {
  const jobs = automations.flatMap((automation) => {
    if (!automation.enabled || automation.trigger.kind !== "schedule") return [];
    const org = store.organizations.findByKey(automation.orgKey);
    if (org === null) return [];
    // A run the store refused is logged, never thrown from the timer (issue 16, defect 1).
    const onError = (error: unknown) =>
      logger.error({ err: error, automation: automation.name }, "scheduled automation failed");
    return [new Cron(automation.trigger.cron, { catch: onError }, () => rules.runScheduled(automation, org.id))];
  });
  return {
    async stop() {
      for (const job of jobs) job.stop();
    },
  };
}
