/**
 * `webhook_endpoint.paused` (added under docs/api.md section 9.2; docs/webhooks.md,
 * "Event types"): an endpoint was paused (410 Gone, or ten messages in a row that
 * failed every attempt), told to the organisation's other endpoints. It is recorded
 * by the store in the transaction that pauses the endpoint, and never queued for
 * the paused endpoint itself.
 */
import { type Static, Type } from "@sinclair/typebox";
import { isoFromMs } from "../../../lib/clock.ts";
import { urlForLog } from "../../../lib/log-url.ts";
import { isoTime, literals, nullable, publicId } from "./fields.ts";

export const pauseReasons = ["gone", "failed_messages"] as const;
export type PauseReason = (typeof pauseReasons)[number];

/** The endpoint's `pause_reason` as both engines store it (docs/webhooks.md, "Pausing, held messages and enabling"). */
export function pauseReasonText(reason: PauseReason, failedMessages: number): string {
  return reason === "gone"
    ? "the endpoint answered 410 Gone"
    : `${failedMessages} messages in a row failed every attempt`;
}

export const WebhookEndpointPausedData = Type.Object(
  {
    endpoint_id: publicId,
    /** Without user name, password, query string or fragment: a token in them stays out of other receivers' hands. */
    url: Type.String(),
    description: nullable(Type.String()),
    reason: literals(pauseReasons),
    /** Messages in a row that failed every attempt, the last one included. */
    failed_messages: Type.Integer({ minimum: 0 }),
    last_status_code: nullable(Type.Integer()),
    paused_at: isoTime,
  },
  { additionalProperties: false },
);
export type WebhookEndpointPausedData = Static<typeof WebhookEndpointPausedData>;

export interface EndpointPause {
  endpoint: { uuid: string; url: string; description: string | null };
  reason: PauseReason;
  failedMessages: number;
  lastStatusCode: number | null;
  pausedAt: number;
}

export function webhookEndpointPaused(pause: EndpointPause) {
  return {
    type: "webhook_endpoint.paused" as const,
    data: {
      endpoint_id: pause.endpoint.uuid,
      url: urlForLog(pause.endpoint.url),
      description: pause.endpoint.description,
      reason: pause.reason,
      failed_messages: pause.failedMessages,
      last_status_code: pause.lastStatusCode,
      paused_at: isoFromMs(pause.pausedAt),
    } satisfies WebhookEndpointPausedData,
  };
}
