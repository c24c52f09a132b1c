/**
 * An event as it goes out, the same bytes on every door (docs/webhooks.md,
 * "Payload"; docs/mqtt.md, "Events"): `id` (the webhook-id), `type`, `timestamp`
 * and `data`, kept as the store holds it (JSON text), so a receiver of both the
 * webhook and the MQTT message sees one event.
 */
import { isoFromMs } from "./clock.ts";

export function eventEnvelope(messageId: string, type: string, occurredAt: number, dataJson: string): string {
  return `{"id":${JSON.stringify(messageId)},"type":${JSON.stringify(type)},"timestamp":"${isoFromMs(occurredAt)}","data":${dataJson}}`;
}
