/**
 * Delivers webhook messages from the store (docs/api.md section 6.4, "Delivery and
 * retries"). Every message is in the store before its first attempt; every
 * attempt's outcome is written in one transaction with its log line, so a
 * restart (or a kill -9) resumes each message at its due time. Delivery is at
 * least once: a message whose attempt was cut off by a crash is sent again.
 *
 * - success: any 2xx within the timeout (10 s); anything else fails, and
 *   redirects are not followed;
 * - retries after 30 s, 2 min, 10 min, 1 h and 6 h (six attempts), with the same
 *   webhook-id and a fresh timestamp and signature each time; a Retry-After on
 *   429 or 503 postpones the next attempt, within the schedule's longest delay;
 * - after ten messages in a row that failed every attempt the endpoint is
 *   paused; a 410 Gone pauses it at once. Its messages are then held, not lost.
 * - attempts run concurrently: a bound overall and a bound per endpoint, and
 *   endpoints are served in turn, so a slow endpoint never delays the others;
 * - an outcome the store cannot take (full disk, held lock) is kept in memory,
 *   its message not sent again, and written once the store takes it.
 */
import type { Clock } from "../lib/clock.ts";
import { isoFromMs } from "../lib/clock.ts";
import { urlForLog } from "../lib/log-url.ts";
import type { Logger } from "../lib/logger.ts";
import { version } from "../lib/version.ts";
import type { AttemptOutcome, AttemptRow, DueDelivery, EndpointRow } from "../store/contract/webhooks.ts";
import type { Store } from "../store/index.ts";
import { signatureHeader } from "./signing.ts";

export const defaultRetryDelaysMs = [30_000, 120_000, 600_000, 3_600_000, 21_600_000];

export interface DispatcherOptions {
  store: Store;
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

export interface DispatcherStats {
  attempts: number;
  delivered: number;
  failedAttempts: number;
  failedMessages: number;
  /** Attempts whose outcome another process had already taken over (a lease that ran out; docs/fleet.md). */
  lostClaims: number;
  inFlight: number;
}

const excerptBytes = 512;

export function startDispatcher(options: DispatcherOptions) {
  const { store, clock, logger } = options;
  const queries = store.webhooks;
  const retryDelays = options.retryDelaysMs ?? defaultRetryDelaysMs;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const pauseAfter = options.pauseAfterFailedMessages ?? 10;
  const concurrency = options.concurrency ?? 32;
  const perEndpoint = options.perEndpointConcurrency ?? 4;
  const pollEveryMs = options.pollEveryMs ?? 1000;
  const stats: DispatcherStats = {
    attempts: 0,
    delivered: 0,
    failedAttempts: 0,
    failedMessages: 0,
    lostClaims: 0,
    inFlight: 0,
  };

  /** Messages taken for an attempt, until their outcome is written. */
  const inFlight = new Set<number>();
  const inFlightPerEndpoint = new Map<number, number>();
  const running = new Set<Promise<void>>();
  /** Outcomes the store refused (full disk, held lock): kept in flight and written again. */
  const unwritten = new Map<number, { endpointId: number; write: () => Promise<void> }>();
  /**
   * Messages released while `fill` waits for the store: its read of the due ones
   * may predate their outcome, so they are not taken again from that read.
   */
  let releasedDuringFill: Set<number> | null = null;
  let lastWriteTry = 0;
  let writeError: string | null = null;
  let stopped = false;
  let wakeUp: (() => void) | null = null;

  function wake(): void {
    wakeUp?.();
  }

  function writeFailed(error: unknown, what: string): void {
    const message = error instanceof Error ? error.message : String(error);
    if (message !== writeError) logger.error({ err: error }, `${what} failed; kept and written again`);
    writeError = message;
  }

  function release(deliveryId: number, endpointId: number): void {
    releasedDuringFill?.add(deliveryId);
    inFlight.delete(deliveryId);
    inFlightPerEndpoint.set(endpointId, (inFlightPerEndpoint.get(endpointId) ?? 1) - 1);
  }

  /** Writes an outcome now, or keeps it (and the message's slot) for the next try. */
  async function writeOutcome(deliveryId: number, endpointId: number, write: () => Promise<void>): Promise<void> {
    try {
      await write();
      writeError = null;
      release(deliveryId, endpointId);
    } catch (error) {
      writeFailed(error, "webhook outcome write");
      unwritten.set(deliveryId, { endpointId, write });
    }
  }

  /** Outcomes the store refused, tried again at most once a second. */
  async function retryUnwritten(): Promise<void> {
    if (unwritten.size === 0 || performance.now() - lastWriteTry < 1000) return;
    lastWriteTry = performance.now();
    for (const [deliveryId, { endpointId, write }] of unwritten) {
      try {
        await write();
      } catch (error) {
        writeFailed(error, "webhook outcome write");
        return;
      }
      writeError = null;
      unwritten.delete(deliveryId);
      release(deliveryId, endpointId);
    }
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      let started = false;
      try {
        await retryUnwritten();
        started = await fill();
      } catch (error) {
        // A store read that failed: the next turn tries again.
        writeFailed(error, "webhook queue read");
      }
      if (!started) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollEveryMs);
          wakeUp = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wakeUp = null;
      } else {
        // Let attempts progress; come back when one finishes or soon.
        await Promise.race([...running, Bun.sleep(20)]);
      }
    }
  }

  /**
   * Starts attempts for due messages within the bounds; whether it started any.
   * Endpoints are served in turn, one message each per round, each up to its free
   * slots: a receiver that never answers fills its own slots only, and a backlog
   * queued to it never stands before another endpoint's messages.
   */
  async function fill(): Promise<boolean> {
    if (inFlight.size >= concurrency) return false;
    const now = clock.now();
    const queues: DueDelivery[][] = [];
    const released = new Set<number>();
    releasedDuringFill = released;
    try {
      for (const endpointId of await queries.dueEndpoints(now)) {
        const load = inFlightPerEndpoint.get(endpointId) ?? 0;
        if (load >= perEndpoint) continue;
        // Its messages in flight are still due in the store: ask for as many more as it has slots.
        const due = await queries.dueFor(endpointId, now, perEndpoint);
        const waiting = due.filter((delivery) => !inFlight.has(delivery.id) && !released.has(delivery.id));
        if (waiting.length > 0) queues.push(waiting.slice(0, perEndpoint - load));
      }
    } finally {
      releasedDuringFill = null;
    }
    let startedAny = false;
    for (let round = 0; round < perEndpoint && inFlight.size < concurrency; round++) {
      for (const waiting of queues) {
        if (inFlight.size >= concurrency) break;
        const delivery = waiting[round];
        if (delivery !== undefined) {
          start(delivery);
          startedAny = true;
        }
      }
    }
    stats.inFlight = inFlight.size;
    return startedAny;
  }

  function start(delivery: DueDelivery): void {
    inFlight.add(delivery.id);
    inFlightPerEndpoint.set(delivery.endpointId, (inFlightPerEndpoint.get(delivery.endpointId) ?? 0) + 1);
    const attempt = attemptDelivery(delivery)
      .catch((error) => {
        // A store read before sending failed: the message stays due and is taken again.
        writeFailed(error, "webhook attempt");
        release(delivery.id, delivery.endpointId);
      })
      .finally(() => {
        running.delete(attempt);
        wake();
      });
    running.add(attempt);
  }

  async function attemptDelivery(delivery: DueDelivery): Promise<void> {
    const endpoint = await queries.endpointById(delivery.endpointId);
    const deleted = endpoint !== null && (await queries.endpoint(endpoint.uuid)) === null;
    if (endpoint === null || deleted || endpoint.status !== "enabled") {
      // Paused since the message was queued: held; deleted: discarded. Never picked up again.
      const status = endpoint !== null && !deleted ? "held" : "discarded";
      await writeOutcome(delivery.id, delivery.endpointId, () => queries.setAside(delivery.id, status, clock.now()));
      return;
    }
    const result = await send(endpoint, delivery);
    stats.attempts++;
    const attemptNumber = delivery.attempts + 1;
    let outcome: AttemptOutcome;
    if (result.ok) {
      outcome = { kind: "delivered" };
      stats.delivered++;
    } else {
      stats.failedAttempts++;
      if (result.attempt.statusCode === 410) {
        outcome = { kind: "gone" };
      } else if (attemptNumber > retryDelays.length) {
        outcome = { kind: "failed", pauseAfter };
      } else {
        const scheduled = retryDelays[attemptNumber - 1] ?? 0;
        const longest = Math.max(...retryDelays);
        const asked = result.retryAfterMs === null ? 0 : Math.min(result.retryAfterMs, longest);
        outcome = { kind: "retry", at: clock.now() + Math.max(scheduled, asked) };
      }
      if (outcome.kind !== "retry") stats.failedMessages++;
    }
    await writeOutcome(delivery.id, delivery.endpointId, async () => {
      const { paused, settled } = await queries.settle(delivery, result.attempt, outcome);
      if (!settled) {
        // At-least-once: the process that took the message over sends it too, with the same webhook-id.
        stats.lostClaims++;
        logger.warn(
          { endpoint: endpoint.uuid, delivery: delivery.id },
          "webhook message taken over by another process after its lease ran out; its outcome there is kept",
        );
      }
      if (paused) {
        logger.warn(
          { endpoint: endpoint.uuid, url: urlForLog(endpoint.url) },
          "webhook endpoint paused; enable it to resume",
        );
      }
    });
  }

  async function send(
    endpoint: EndpointRow,
    delivery: DueDelivery,
  ): Promise<{ ok: boolean; attempt: AttemptRow; retryAfterMs: number | null }> {
    // The exact bytes that are signed are the bytes sent; `data` is stored as JSON text.
    const body = `{"id":${JSON.stringify(delivery.messageId)},"type":${JSON.stringify(delivery.type)},"timestamp":"${isoFromMs(delivery.occurredAt)}","data":${delivery.data}}`;
    const attemptedAt = clock.now();
    const timestamp = Math.floor(attemptedAt / 1000);
    const secrets = [endpoint.secret];
    if (endpoint.previousSecret !== null && (endpoint.previousSecretUntil ?? 0) > attemptedAt)
      secrets.push(endpoint.previousSecret);
    const began = performance.now();
    const attempt: AttemptRow = { attemptedAt, statusCode: null, durationMs: 0, error: null, responseExcerpt: null };
    try {
      const response = await fetch(endpoint.url, {
        method: "POST",
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
        headers: {
          "content-type": "application/json",
          "user-agent": `fieldhub/${version}`,
          "webhook-id": delivery.messageId,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": signatureHeader(secrets, delivery.messageId, timestamp, body),
          "x-service-event": delivery.type,
        },
      });
      attempt.statusCode = response.status;
      attempt.responseExcerpt = (await readExcerpt(response)) || null;
      attempt.durationMs = Math.round(performance.now() - began);
      if (response.status >= 200 && response.status < 300) return { ok: true, attempt, retryAfterMs: null };
      if (response.status >= 300 && response.status < 400) {
        attempt.error = `redirect to ${response.headers.get("location") ?? "(no location)"} not followed`;
      } else {
        attempt.error = `HTTP ${response.status}`;
      }
      const retryAfter =
        response.status === 429 || response.status === 503
          ? parseRetryAfter(response.headers.get("retry-after"), attemptedAt)
          : null;
      return { ok: false, attempt, retryAfterMs: retryAfter };
    } catch (error) {
      attempt.durationMs = Math.round(performance.now() - began);
      const name = (error as { name?: string }).name;
      attempt.error =
        name === "TimeoutError"
          ? `no answer within ${timeoutMs / 1000} s`
          : error instanceof Error
            ? error.message
            : String(error);
      return { ok: false, attempt, retryAfterMs: null };
    }
  }

  const loopDone = loop();
  return {
    /** Look for due messages now (a new event was recorded). */
    wake,
    stats: (): DispatcherStats => ({ ...stats, inFlight: inFlight.size }),
    pending: () => queries.pendingCount(),
    /** Stops taking new attempts; attempts in flight finish (their outcome is stored when the store takes it). */
    async stop(): Promise<void> {
      stopped = true;
      wake();
      await loopDone;
      await Promise.all([...running]);
      lastWriteTry = 0;
      await retryUnwritten();
    },
  };
}
export type Dispatcher = ReturnType<typeof startDispatcher>;

async function readExcerpt(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < excerptBytes) {
      const { value, done } = await reader.read();
      if (done || value === undefined) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).subarray(0, excerptBytes).toString("utf8");
}

/** Retry-After in seconds or as an HTTP date; null when absent or unreadable. */
function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : null;
}
