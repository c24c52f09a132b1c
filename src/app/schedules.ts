/**
 * The appliance's clock-driven jobs (croner): readings retention, closing
 * history periods into compressed blocks, delivery-log pruning and scheduled
 * automations.
 */
import { Cron } from "croner";
import type { RulesEngine } from "../alerting/engine.ts";
import type { AutomationConfig } from "../alerting/rule-model.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import { SerialTurns } from "../lib/serial-turns.ts";
import { createTrustedWallClock, type TrustedWallClock } from "../lib/trusted-wall-clock.ts";
import type { Store } from "../store/index.ts";

export interface Schedule {
  stop(): Promise<void>;
}

/**
 * The time below which retention deletes readings: the retention before the
 * earlier of the trusted wall clock (a step forward believed only once it held
 * an hour) and the newest stored reading, so a clock jump never deletes history
 * (docs/reliability.md, "Clock steps").
 */
export function retentionCutoff(
  trusted: TrustedWallClock,
  newestStored: number | null,
  retentionMs: number,
): { cutoff: number; heldBy: "clock_step" | "newest_reading" | null } {
  const now = trusted.now();
  const base = newestStored === null ? now : Math.min(now, newestStored);
  // Named only when it holds pruning back noticeably: the newest reading is
  // normally a poll or a storage interval old.
  const heldBy = trusted.aheadMs() > 0 ? "clock_step" : now - base > 3_600_000 ? "newest_reading" : null;
  return { cutoff: base - retentionMs, heldBy };
}

async function newestStoredReading(store: Pick<Store, "readings">): Promise<number | null> {
  let newest: number | null = null;
  for (const ts of (await store.readings.newestTimes()).values()) if (newest === null || ts > newest) newest = ts;
  return newest;
}

/** Prunes history older than the retention every hour (and once a minute after start). */
export function scheduleRetention(
  store: Pick<Store, "readings" | "writes">,
  clock: Clock,
  logger: Logger,
  retentionDays: number,
  trusted: TrustedWallClock = createTrustedWallClock(clock),
): Schedule {
  const abort = new AbortController();
  // An hourly run and the first one never overlap: each starts when the one before is done.
  const turns = new SerialTurns((error) => logger.error({ err: error }, "retention pruning failed"));
  const run = () => {
    void turns.run(async () => {
      if (abort.signal.aborted) return;
      const newest = await newestStoredReading(store);
      const { cutoff, heldBy } = retentionCutoff(trusted, newest, retentionDays * 86_400_000);
      if (heldBy === "clock_step") {
        logger.warn(
          { clock: new Date(clock.now()).toISOString(), trusted: new Date(trusted.now()).toISOString() },
          "retention: the wall clock stepped ahead; pruning as of the time before the step until the new time has held an hour",
        );
      }
      const result = await store.readings.prune(cutoff, { signal: abort.signal });
      logger.info(
        {
          deleted: result.deleted,
          batches: result.batches,
          registers: result.registers,
          ms: Math.round(result.ms),
          older_than: new Date(cutoff).toISOString(),
          held_by: heldBy,
          newest_reading: newest === null ? null : new Date(newest).toISOString(),
        },
        "retention pruned readings",
      );
      // The write audit is kept like history.
      let auditDeleted = 0;
      for (
        let batch = await store.writes.deleteOlderThan(cutoff, 5000);
        batch > 0;
        batch = await store.writes.deleteOlderThan(cutoff, 5000)
      ) {
        auditDeleted += batch;
        if (abort.signal.aborted) break;
      }
      if (auditDeleted > 0) logger.info({ deleted: auditDeleted }, "retention pruned register writes");
    });
  };
  const hourly = new Cron("17 * * * *", run);
  const first = setTimeout(run, 60_000);
  return {
    async stop() {
      abort.abort();
      hourly.stop();
      clearTimeout(first);
      await turns.settled();
    },
  };
}

/**
 * Once a minute, encodes the history periods that ended into compressed blocks
 * (the store's history engines; a day's period closes ten minutes after midnight UTC) and
 * persists the latest values when due.
 */
export function scheduleHistoryClose(store: Pick<Store, "readings">, clock: Clock, logger: Logger): Schedule {
  const turns = new SerialTurns((error) => logger.error({ err: error }, "closing history periods failed; will retry"));
  const minutely = new Cron("* * * * *", () => {
    void turns.run(async () => {
      const began = performance.now();
      const closed = await store.readings.closePeriods(clock.now());
      if (closed > 0) logger.info({ periods: closed, ms: Math.round(performance.now() - began) }, "history closed");
    });
  });
  return {
    async stop() {
      minutely.stop();
      await turns.settled();
    },
  };
}

/**
 * The delivery log keeps its own, shorter retention (config `webhooks.log_retention_days`);
 * pruned nightly, as of the trusted wall clock (a step forward does not empty it).
 */
export function scheduleDeliveryLogPruning(
  store: Pick<Store, "webhooks">,
  clock: Clock,
  logger: Logger,
  logRetentionDays: number,
): Schedule {
  const trusted = createTrustedWallClock(clock);
  const nightly = new Cron("23 3 * * *", async () => {
    try {
      const pruned = await store.webhooks.pruneLog(trusted.now() - logRetentionDays * 86_400_000);
      logger.info({ ...pruned }, "webhook delivery log pruned");
    } catch (error) {
      // A full disk or a held lock: the next night prunes what is older then.
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
export async function scheduleAutomations(
  store: Pick<Store, "organizations">,
  rules: RulesEngine,
  automations: readonly AutomationConfig[],
  logger: Logger,
): Promise<Schedule> {
  const jobs: Cron[] = [];
  for (const automation of automations) {
    if (!automation.enabled || automation.trigger.kind !== "schedule") continue;
    const org = await store.organizations.findByKey(automation.orgKey);
    if (org === null) continue;
    // A run the store refused is logged, never thrown from the timer.
    const onError = (error: unknown) =>
      logger.error({ err: error, automation: automation.name }, "scheduled automation failed");
    jobs.push(
      new Cron(automation.trigger.cron, { catch: onError }, () =>
        rules.runScheduled(automation, org.id).catch(onError),
      ),
    );
  }
  return {
    async stop() {
      for (const job of jobs) job.stop();
    },
  };
}
