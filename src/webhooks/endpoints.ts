/**
 * The one service behind webhook endpoint management, for the CLI now and the
 * admin page later (docs/api.md section 6: endpoints added by owners and admins, who
 * choose the events and copy the signing secret).
 */
import { isoFromMs } from "../lib/clock.ts";
import { CodedError } from "../lib/errors.ts";
import { randomUuid } from "../lib/ids.ts";
import { eventTypes, webhookTest } from "../store/contract/event-types.ts";
import type { DeliveryCounts, EndpointRow, ResendRange } from "../store/contract/webhooks.ts";
import type { Store } from "../store/index.ts";
import { generateSigningSecret } from "./signing.ts";

export interface EndpointView {
  id: string;
  organization: string;
  url: string;
  description: string | null;
  /** Empty: every event type. */
  events: string[];
  status: "enabled" | "paused";
  paused_at: string | null;
  pause_reason: string | null;
  failed_messages_in_row: number;
  /** Deliveries a second at most; null: unlimited. */
  rate_limit_per_s: number | null;
  created_at: string;
  secret_rotation_ends_at: string | null;
}

export function presentEndpoint(row: EndpointRow, now: number): EndpointView {
  return {
    id: row.uuid,
    organization: row.orgKey,
    url: row.url,
    description: row.description,
    events: row.eventTypes.split(" ").filter((type) => type.length > 0),
    status: row.status,
    paused_at: row.pausedAt === null ? null : isoFromMs(row.pausedAt),
    pause_reason: row.pauseReason,
    failed_messages_in_row: row.failedMessagesInRow,
    rate_limit_per_s: row.rateLimitPerS,
    created_at: isoFromMs(row.createdAt),
    // Only while the old secret is still signed with.
    secret_rotation_ends_at:
      row.previousSecret !== null && row.previousSecretUntil !== null && row.previousSecretUntil > now
        ? isoFromMs(row.previousSecretUntil)
        : null,
  };
}

/** http or https, with a host (LAN addresses are normal targets here). */
export function checkEndpointUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CodedError("bad_request", `not a URL: ${url}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new CodedError("bad_request", `the URL must be http or https: ${url}`);
  }
  if (parsed.username !== "" || parsed.password !== "") {
    throw new CodedError("bad_request", "the URL must not carry a user name or password");
  }
  return parsed.toString();
}

export function checkEventTypes(types: readonly string[]): string {
  const unknown = types.filter((type) => !(eventTypes as readonly string[]).includes(type));
  if (unknown.length > 0) {
    throw new CodedError(
      "bad_request",
      `unknown event type ${unknown.join(", ")}; event types are ${eventTypes.join(", ")}`,
    );
  }
  return [...new Set(types)].join(" ");
}

/** The most a rate limit may say: beyond it the dispatcher's own pace is the limit. */
export const maxRateLimitPerS = 10_000;

/** A whole number of deliveries a second, 1..10000, or null (unlimited). */
export function checkRateLimit(perSecond: number | null): number | null {
  if (perSecond === null) return null;
  if (!Number.isInteger(perSecond) || perSecond < 1 || perSecond > maxRateLimitPerS) {
    throw new CodedError(
      "bad_request",
      `rate_limit_per_s must be a whole number from 1 to ${maxRateLimitPerS} (or null: unlimited), not ${perSecond}`,
    );
  }
  return perSecond;
}

export function endpointService(store: Store, now: () => number) {
  const queries = store.webhooks;

  async function find(id: string): Promise<EndpointRow> {
    const row = await queries.endpoint(id.toLowerCase());
    if (row === null) throw new CodedError("not_found", `no webhook endpoint ${id}`);
    return row;
  }

  return {
    async create(input: {
      orgKey: string;
      url: string;
      description?: string | null;
      events?: readonly string[];
      rateLimitPerS?: number | null;
    }) {
      const org = await store.organizations.findByKey(input.orgKey);
      if (org === null) throw new CodedError("not_found", `no organisation "${input.orgKey}"`);
      const uuid = randomUuid();
      const secret = generateSigningSecret();
      await queries.createEndpoint({
        uuid,
        orgId: org.id,
        url: checkEndpointUrl(input.url),
        description: input.description ?? null,
        eventTypes: checkEventTypes(input.events ?? []),
        secret,
        rateLimitPerS: checkRateLimit(input.rateLimitPerS ?? null),
        now: now(),
      });
      return { endpoint: presentEndpoint(await find(uuid), now()), secret };
    },
    async list(orgKey?: string): Promise<EndpointView[]> {
      return (await queries.endpoints())
        .filter((row) => orgKey === undefined || row.orgKey === orgKey)
        .map((row) => presentEndpoint(row, now()));
    },
    async get(id: string): Promise<EndpointView> {
      return presentEndpoint(await find(id), now());
    },
    /** The signing secret, for an admin who asks (never logged). */
    async secret(id: string): Promise<{ secret: string; previous: string | null; previousUntil: string | null }> {
      const row = await find(id);
      const rotating = row.previousSecret !== null && (row.previousSecretUntil ?? 0) > now();
      return {
        secret: row.secret,
        previous: rotating ? row.previousSecret : null,
        previousUntil: rotating && row.previousSecretUntil !== null ? isoFromMs(row.previousSecretUntil) : null,
      };
    },
    async update(
      id: string,
      fields: {
        url?: string;
        description?: string | null;
        events?: readonly string[];
        rateLimitPerS?: number | null;
      },
    ): Promise<EndpointView> {
      const row = await find(id);
      await queries.updateEndpoint(row.id, {
        url: fields.url === undefined ? undefined : checkEndpointUrl(fields.url),
        description: fields.description,
        eventTypes: fields.events === undefined ? undefined : checkEventTypes(fields.events),
        rateLimitPerS: fields.rateLimitPerS === undefined ? undefined : checkRateLimit(fields.rateLimitPerS),
      });
      return presentEndpoint(await find(id), now());
    },
    async delete(id: string): Promise<void> {
      await queries.deleteEndpoint((await find(id)).id, now());
    },
    /**
     * A new secret; the old one stays valid for `graceMs`, during which every
     * delivery carries both signatures (Standard Webhooks allows several).
     */
    async rotateSecret(id: string, graceMs: number): Promise<{ secret: string; previousValidUntil: string }> {
      const row = await find(id);
      const secret = generateSigningSecret();
      const until = now() + graceMs;
      await queries.rotateSecret(row.id, secret, row.secret, until);
      return { secret, previousValidUntil: isoFromMs(until) };
    },
    /** Enables a paused endpoint: held messages are delivered from now on, or discarded (how many: `held`). */
    async enable(id: string, options: { discardHeld: boolean }): Promise<EndpointView & { held: number }> {
      const row = await find(id);
      const held = await queries.enable(row.id, now(), options.discardHeld);
      return { ...presentEndpoint(await find(id), now()), held };
    },
    /** Queues a test message (type `webhook.test`) to this endpoint only; returns its message id. */
    async sendTest(id: string): Promise<string> {
      const row = await find(id);
      const at = now();
      const queued = await queries.queueMessage(row.id, { orgId: row.orgId, occurredAt: at, ...webhookTest(row.uuid) });
      return queued.messageId;
    },
    /** Sends a message again to an endpoint (same webhook-id, new attempts). */
    async resend(id: string, messageId: string): Promise<void> {
      const row = await find(id);
      const eventId = await queries.eventIdOfMessage(row.orgId, messageId);
      if (eventId === null)
        throw new CodedError("not_found", `no message ${messageId} in this endpoint's organisation`);
      await queries.enqueue(row.id, eventId, now());
    },
    /**
     * Queues again the endpoint's finished messages whose timestamp is in
     * [since, until) (same webhook-ids and bodies, fresh attempts); returns the new
     * deliveries' ids, oldest message first, to follow with `resendProgress`.
     */
    async resendRange(id: string, range: ResendRange): Promise<{ endpoint: EndpointView; deliveryIds: number[] }> {
      if (!(range.until > range.since)) {
        throw new CodedError(
          "bad_request",
          `until (${isoFromMs(range.until)}) must be after since (${isoFromMs(range.since)})`,
        );
      }
      const row = await find(id);
      const deliveryIds = await queries.resendRange(row.id, range, now());
      return { endpoint: presentEndpoint(row, now()), deliveryIds };
    },
    /** Where a range resend stands: its messages by status. */
    resendProgress(deliveryIds: readonly number[]): Promise<DeliveryCounts> {
      return queries.deliveryStatusCounts(deliveryIds);
    },
    /**
     * The delivery log, also of a deleted endpoint. `excerpts: false` leaves out
     * what receivers answered (up to 512 bytes of whatever a LAN service said):
     * viewers do not see it.
     */
    async deliveries(id: string, limit = 50, { excerpts = true }: { excerpts?: boolean } = {}) {
      const row = await queries.endpointEvenDeleted(id.toLowerCase());
      if (row === null) throw new CodedError("not_found", `no webhook endpoint ${id}`);
      const deliveries = await queries.deliveries(row.id, limit);
      const attemptLogs = await Promise.all(deliveries.map((delivery) => queries.attempts(delivery.id)));
      return deliveries.map((delivery, index) => ({
        message_id: delivery.messageId,
        type: delivery.type,
        status: delivery.status,
        attempts: delivery.attempts,
        next_attempt_at: delivery.nextAttemptAt === null ? null : isoFromMs(delivery.nextAttemptAt),
        created_at: isoFromMs(delivery.createdAt),
        completed_at: delivery.completedAt === null ? null : isoFromMs(delivery.completedAt),
        last_status_code: delivery.lastStatusCode,
        last_error: delivery.lastError,
        attempt_log: (attemptLogs[index] ?? []).map((attempt) => ({
          at: isoFromMs(attempt.attemptedAt),
          status_code: attempt.statusCode,
          duration_ms: attempt.durationMs,
          error: attempt.error,
          response: excerpts ? attempt.responseExcerpt : null,
        })),
      }));
    },
  };
}
export type EndpointService = ReturnType<typeof endpointService>;
