/**
 * One attempt at a message (docs/webhooks.md, "What a delivery looks like"): the
 * envelope signed with the endpoint's secret (and the previous one during a
 * rotation), POSTed without following redirects, the first 512 bytes of the
 * answer kept for the delivery log. It decides nothing: retry-decision.ts does.
 */
import { eventEnvelope } from "../lib/event-envelope.ts";
import { version } from "../lib/version.ts";
import type { AttemptRow, DueDelivery, EndpointRow } from "../store/contract/webhooks.ts";
import { parseRetryAfter } from "./retry-decision.ts";
import { signatureHeader } from "./signing.ts";

const excerptBytes = 512;

export interface SentAttempt {
  /** A 2xx answer within the timeout. */
  delivered: boolean;
  attempt: AttemptRow;
  /** The answer's Retry-After, null when it gave none. */
  retryAfterMs: number | null;
}

export async function sendAttempt(
  endpoint: EndpointRow,
  delivery: DueDelivery,
  options: {
    now: () => number;
    timeoutMs: number;
    /** Aborts the attempt at its deadline (attempts started together share one); by default its own timeout. */
    deadline?: AbortSignal;
  },
): Promise<SentAttempt> {
  // The exact bytes that are signed are the bytes sent; `data` is stored as JSON text.
  const body = eventEnvelope(delivery.messageId, delivery.type, delivery.occurredAt, delivery.data);
  const attemptedAt = options.now();
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
      signal: options.deadline ?? AbortSignal.timeout(options.timeoutMs),
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
    if (response.status >= 200 && response.status < 300) return { delivered: true, attempt, retryAfterMs: null };
    if (response.status >= 300 && response.status < 400) {
      attempt.error = `redirect to ${response.headers.get("location") ?? "(no location)"} not followed`;
    } else {
      attempt.error = `HTTP ${response.status}`;
    }
    return {
      delivered: false,
      attempt,
      retryAfterMs: parseRetryAfter(response.headers.get("retry-after"), attemptedAt),
    };
  } catch (error) {
    attempt.durationMs = Math.round(performance.now() - began);
    const name = (error as { name?: string }).name;
    attempt.error =
      name === "TimeoutError"
        ? `no answer within ${options.timeoutMs / 1000} s`
        : error instanceof Error
          ? error.message
          : String(error);
    return { delivered: false, attempt, retryAfterMs: null };
  }
}

async function readExcerpt(response: Response): Promise<string> {
  if (response.body === null) return "";
  // A short answer of known length, not compressed (the usual one), is read whole without a reader.
  const length = Number(response.headers.get("content-length") ?? Number.NaN);
  if (length <= excerptBytes && !response.headers.has("content-encoding")) return await response.text();
  const reader = response.body.getReader();
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
