/**
 * Delivers webhook messages from the store (docs/api.md section 6.4, "Delivery and
 * retries"). Every message is in the store before its first attempt; every
 * attempt's outcome is written with its log line, the outcomes that finished
 * together in one transaction (a batch), and a message's slot is freed only once
 * its outcome is written, so a restart (or a kill -9) resumes each message at its
 * due time. Delivery is at least once: a message whose attempt was cut off by a
 * crash, or whose outcome was not yet written, is sent again.
 *
 * - an attempt (send-attempt.ts): success is any 2xx within the timeout (10 s);
 *   anything else fails, and redirects are not followed; the same webhook-id and
 *   a fresh timestamp and signature each time;
 * - what follows it (retry-decision.ts): retries after 30 s, 2 min, 10 min, 1 h
 *   and 6 h (six attempts), a Retry-After on 429 or 503 honoured within the
 *   schedule's longest delay; a pause after ten messages in a row that failed
 *   every attempt, or at once on 410 Gone. Held messages are not lost.
 * - attempts run concurrently (delivery-slots.ts): a bound overall and a bound
 *   per endpoint, and endpoints are served in turn, so a slow endpoint never
 *   delays the others; a read takes more due messages than the slots free, and
 *   the next turns start those kept without reading (read-ahead.ts), and a turn
 *   that follows settles reuses, for 50 ms, the last read of the endpoints and of
 *   which have messages due;
 * - an endpoint's `rate_limit_per_s` paces its attempts (pacing.ts), the others not;
 * - an outcome the store cannot take (full disk, held lock) is kept in memory,
 *   its message not sent again, and written once the store takes it
 *   (unwritten-outcomes.ts).
 */

import type { Clock } from "../lib/clock.ts";
import { LoggedFailure } from "../lib/log-once.ts";
import { urlForLog } from "../lib/log-url.ts";
import type { Logger } from "../lib/logger.ts";
import { createWakeSignal } from "../lib/wake-signal.ts";
import type { DueDelivery, EndpointRow, Settlement, SettleOutcome } from "../store/contract/webhooks.ts";
import type { Store } from "../store/index.ts";
import { DeliverySlots, takeDue } from "./delivery-slots.ts";
import { EndpointPacing } from "./pacing.ts";
import { ReadAhead } from "./read-ahead.ts";
import { attemptOutcome, defaultRetryDelaysMs } from "./retry-decision.ts";
import { type SentAttempt, sendAttempt } from "./send-attempt.ts";
import { UnwrittenOutcomes } from "./unwritten-outcomes.ts";

export interface DispatcherOptions {
  store: Pick<Store, "webhooks">;
  clock: Clock;
  logger: Logger;
  /** Delays before attempts 2..n (docs/api.md section 6.4: 30 s, 2 min, 10 min, 1 h, 6 h). */
  retryDelaysMs?: readonly number[];
  /** How long a receiver has to answer (docs/api.md section 6.4: 10 s). */
  timeoutMs?: number;
  /** Messages in a row that failed every attempt before the endpoint is paused (docs/api.md section 6.4: ten). */
  pauseAfterFailedMessages?: number;
  concurrency?: number;
  perEndpointConcurrency?: number;
  /** How often the store is checked for due messages when nothing wakes the dispatcher. */
  pollEveryMs?: number;
}

/** Outcomes written in one transaction at most. */
const settleBatchSize = 500;

/** Due messages read per endpoint beyond its slots, in slots' worth (read-ahead.ts). */
const readAheadSlots = 3;

/** How long a turn after settles may reuse the last read of the endpoints and of which have messages due. */
const reuseReadMs = 50;

/** How long messages read ahead may wait for their turn before the store is read again. */
const readAheadMaxAgeMs = 500;

/** A finished attempt whose outcome waits to be written. */
interface Finished {
  settlement: Settlement;
  endpoint: EndpointRow;
  sent: SentAttempt;
}

export interface DispatcherStats {
  attempts: number;
  delivered: number;
  failedAttempts: number;
  failedMessages: number;
  /** Attempts whose outcome another process had already taken over (a lease that ran out; docs/fleet.md). */
  lostClaims: number;
  /** Endpoints this process paused (410 Gone, or ten failed messages in a row). */
  pausedEndpoints: number;
  inFlight: number;
}

export function startDispatcher(options: DispatcherOptions) {
  const { store, clock, logger } = options;
  const queries = store.webhooks;
  const policy = {
    retryDelaysMs: options.retryDelaysMs ?? defaultRetryDelaysMs,
    pauseAfterFailedMessages: options.pauseAfterFailedMessages ?? 10,
  };
  const timeoutMs = options.timeoutMs ?? 10_000;
  const pollEveryMs = options.pollEveryMs ?? 1000;
  const stats: DispatcherStats = {
    attempts: 0,
    delivered: 0,
    failedAttempts: 0,
    failedMessages: 0,
    lostClaims: 0,
    pausedEndpoints: 0,
    inFlight: 0,
  };

  /** Messages taken for an attempt, until their outcome is written. */
  const slots = new DeliverySlots(options.concurrency ?? 32, options.perEndpointConcurrency ?? 4);
  const ahead = new ReadAhead({
    rows: slots.perEndpoint * readAheadSlots,
    maxAgeMs: readAheadMaxAgeMs,
    now: () => clock.monotonic(),
  });
  const running = new Set<Promise<void>>();
  const pacing = new EndpointPacing(() => clock.monotonic());
  const writeFailure = new LoggedFailure();
  let stopped = false;
  const wakeSignal = createWakeSignal();
  /** A wake that came while the loop was busy: its next pause is skipped. */
  let woken = false;

  /**
   * A turn's read of the endpoints and of which have messages due, which turns
   * woken by settles reuse for `reuseReadMs`; `wakes`: the wakes counted when it
   * was read (a later one means the store changed since).
   */
  let lastRead: { at: number; wakes: number; endpoints: Map<number, EndpointRow>; due: number[] } | null = null;
  let wakes = 0;

  /** Look again now, reading the store afresh (something else changed it: an event, an operator). */
  function wake(): void {
    wakes++;
    woken = true;
    wakeSignal.wake();
  }

  /** Look again now: outcomes written freed slots, and what the last turn read may serve them. */
  function wakeAfterSettle(): void {
    woken = true;
    wakeSignal.wake();
  }

  function writeFailed(error: unknown, what: string): void {
    const message = error instanceof Error ? error.message : String(error);
    if (writeFailure.occurred(message)) logger.error({ err: error }, `${what} failed; kept and written again`);
  }

  /** Outcomes the store refused (full disk, held lock): kept in flight and written again. */
  const unwritten = new UnwrittenOutcomes({
    written: (delivery) => {
      writeFailure.ended();
      slots.release(delivery);
    },
    refused: (error) => writeFailed(error, "webhook outcome write"),
  });

  async function loop(): Promise<void> {
    while (!stopped) {
      woken = false;
      let pauseMs = pollEveryMs;
      try {
        await unwritten.retry();
        pauseMs = Math.min(pauseMs, await fill());
      } catch (error) {
        // A store read that failed: the next turn tries again.
        writeFailed(error, "webhook queue read");
      }
      // Woken by an event, or by written outcomes that freed slots: look again at once.
      if (!woken && !stopped) {
        await wakeSignal.pause(pauseMs);
        if (!woken) lastRead = null;
      }
    }
  }

  /**
   * Starts attempts for due messages within the slots and the endpoints' rate
   * limits (takeDue); returns how long the loop may wait for a rate-limited
   * endpoint's next token (pollEveryMs when none is waiting).
   */
  async function fill(): Promise<number> {
    if (slots.free === 0) return pollEveryMs;
    // Every endpoint read once a round, not once an attempt; a turn after settles reuses a recent read.
    const readAt = clock.monotonic();
    if (lastRead === null || lastRead.wakes !== wakes || readAt - lastRead.at > reuseReadMs) {
      const wakesAtRead = wakes;
      const endpoints = new Map((await queries.endpoints()).map((endpoint) => [endpoint.id, endpoint]));
      lastRead = { at: readAt, wakes: wakesAtRead, endpoints, due: await queries.dueEndpoints(clock.now()) };
    }
    const { endpoints, due } = lastRead;
    let waitMs = pollEveryMs;
    const allowed = (endpointId: number): number => {
      const endpoint = endpoints.get(endpointId);
      if (endpoint === undefined || endpoint.status !== "enabled") return Number.POSITIVE_INFINITY;
      const tokens = pacing.available(endpointId, endpoint.rateLimitPerS);
      if (tokens < 1) waitMs = Math.min(waitMs, Math.max(1, pacing.waitFor(endpointId)));
      return tokens;
    };
    const starting = await takeDue(
      { dueEndpoints: async () => due, dueFor: queries.dueFor },
      slots,
      clock.now(),
      allowed,
      ahead,
    );
    // The attempts started together share one deadline (timeoutMs from now): one timer a turn, not one an attempt.
    const deadline = starting.length > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
    for (const delivery of starting) start(delivery, endpoints.get(delivery.endpointId), deadline);
    stats.inFlight = slots.size;
    return waitMs;
  }

  function start(delivery: DueDelivery, endpoint: EndpointRow | undefined, deadline: AbortSignal | undefined): void {
    slots.take(delivery);
    if (endpoint?.status === "enabled") pacing.take(endpoint.id, 1);
    const attempt = attemptDelivery(delivery, endpoint, deadline)
      .catch((error) => {
        // A store write before sending failed: the message stays due and is taken again.
        writeFailed(error, "webhook attempt");
        slots.release(delivery);
      })
      .finally(() => {
        running.delete(attempt);
      });
    running.add(attempt);
  }

  const now = () => clock.now();

  async function attemptDelivery(
    delivery: DueDelivery,
    endpoint: EndpointRow | undefined,
    deadline: AbortSignal | undefined,
  ): Promise<void> {
    if (endpoint === undefined || endpoint.status !== "enabled") {
      // Paused since the message was queued: held; deleted: discarded. Never picked up again.
      const status = endpoint !== undefined ? "held" : "discarded";
      await unwritten.write(delivery, () => queries.setAside(delivery.id, status, clock.now()));
      wake();
      return;
    }
    const sent = await sendAttempt(endpoint, delivery, { now, timeoutMs, deadline });
    stats.attempts++;
    const outcome = attemptOutcome(
      policy,
      {
        number: delivery.attempts + 1,
        delivered: sent.delivered,
        statusCode: sent.attempt.statusCode,
        retryAfterMs: sent.retryAfterMs,
      },
      clock.now(),
    );
    if (outcome.kind === "delivered") stats.delivered++;
    else stats.failedAttempts++;
    if (outcome.kind === "failed" || outcome.kind === "gone") stats.failedMessages++;
    toSettle.push({ settlement: { delivery, attempt: sent.attempt, outcome }, endpoint, sent });
    settleSoon();
  }

  /** Finished attempts waiting for their outcome's write, and the write under way. */
  const toSettle: Finished[] = [];
  let settling: Promise<void> | null = null;

  /**
   * Writes the finished attempts' outcomes, those that finished together in one
   * transaction; their slots are freed once written. A kill -9 before that loses
   * no message: it is still due in the store and is sent again (at least once).
   */
  function settleSoon(): void {
    if (settling !== null) return;
    settling = (async () => {
      // Let the attempts finishing in this turn join the batch.
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (toSettle.length > 0) await settleBatch(toSettle.splice(0, settleBatchSize));
    })().finally(() => {
      settling = null;
      if (toSettle.length > 0) settleSoon();
      wakeAfterSettle();
    });
  }

  async function settleBatch(batch: Finished[]): Promise<void> {
    let outcomes: SettleOutcome[];
    try {
      outcomes = await queries.settleAll(batch.map((finished) => finished.settlement));
    } catch (error) {
      // Each kept on its own, its message in flight (not sent again), and written in order later.
      writeFailed(error, "webhook outcome write");
      for (const finished of batch) {
        const { delivery, attempt, outcome } = finished.settlement;
        unwritten.keep(delivery, async () => reportSettled(finished, await queries.settle(delivery, attempt, outcome)));
      }
      return;
    }
    writeFailure.ended();
    batch.forEach((finished, index) => {
      reportSettled(finished, outcomes[index] ?? { paused: false, settled: true });
      slots.release(finished.settlement.delivery);
    });
  }

  function reportSettled({ settlement, endpoint, sent }: Finished, { paused, settled }: SettleOutcome): void {
    const { delivery, outcome } = settlement;
    if (!settled) {
      // At-least-once: the process that took the message over sends it too, with the same webhook-id.
      stats.lostClaims++;
      logger.warn(
        { endpoint: endpoint.uuid, delivery: delivery.id },
        "webhook message taken over by another process after its lease ran out; its outcome there is kept",
      );
    }
    if (paused) {
      // Its messages are held now: none read ahead for it is due.
      ahead.drop(delivery.endpointId);
      // Only the settle that paused it says so: one line, one event (webhook_endpoint.paused) per pause.
      stats.pausedEndpoints++;
      logger.error(
        {
          endpoint: endpoint.uuid,
          url: urlForLog(endpoint.url),
          reason: outcome.kind === "gone" ? "gone" : "failed_messages",
          status: sent.attempt.statusCode,
        },
        "webhook endpoint paused; its messages are held until it is enabled (fieldhub endpoints enable)",
      );
    }
  }

  const loopDone = loop();
  return {
    /** Look for due messages now (a new event was recorded). */
    wake,
    stats: (): DispatcherStats => ({ ...stats, inFlight: slots.size }),
    pending: () => queries.pendingCount(),
    /** Stops taking new attempts; attempts in flight finish (their outcome is stored when the store takes it). */
    async stop(): Promise<void> {
      stopped = true;
      wake();
      await loopDone;
      await Promise.all([...running]);
      while (settling !== null) await settling;
      await unwritten.retry({ now: true });
    },
  };
}
export type Dispatcher = ReturnType<typeof startDispatcher>;
