/**
 * `webhook.test` (docs/webhooks.md, "The test message"): sent on request to one
 * endpoint only; it cannot be subscribed to.
 */
import { type Static, Type } from "@sinclair/typebox";
import { publicId } from "./fields.ts";

export const WebhookTestData = Type.Object(
  { endpoint_id: publicId, message: Type.String() },
  { additionalProperties: false },
);
export type WebhookTestData = Static<typeof WebhookTestData>;

export function webhookTest(endpointId: string) {
  return {
    type: "webhook.test" as const,
    data: {
      endpoint_id: endpointId,
      message: "Test message from fieldhub. A receiver that verifies this signature is set up right.",
    } satisfies WebhookTestData,
  };
}
