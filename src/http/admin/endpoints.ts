/**
 * Webhook endpoints in the admin API (docs/api.md section 6), through the same service
 * as `fieldhub endpoints`. Changes that queue a message wake delivery at once.
 */
import { Elysia, t } from "elysia";
import { CodedError } from "../../lib/errors.ts";
import { parseRfc3339 } from "../../lib/timestamps.ts";
import { resendStatuses } from "../../store/contract/webhooks.ts";
import { endpointService, maxRateLimitPerS } from "../../webhooks/endpoints.ts";
import { type AdminContext, adminPrefix } from "./context.ts";

const rateLimitSchema = t.Nullable(
  t.Integer({ minimum: 1, maximum: maxRateLimitPerS, description: "deliveries a second at most; null: unlimited" }),
);

/** A date-time of the resend range, or a 400 naming the field. */
function rangeTime(text: string, field: string): number {
  const ms = parseRfc3339(text);
  if (ms === null) throw new CodedError("bad_request", `${field}: not an RFC 3339 date-time: ${text}`);
  return ms;
}

export function adminEndpointRoutes(context: AdminContext) {
  const endpoints = endpointService(context.store, context.now);
  const eventRecorded = () => context.onEvent?.();

  return (
    new Elysia({ name: "admin-endpoints" })
      .get(`${adminPrefix}/endpoints`, async ({ query }) => ({ data: await endpoints.list(query.organization) }), {
        query: t.Object({ organization: t.Optional(t.String({ maxLength: 200 })) }),
      })
      .post(
        `${adminPrefix}/endpoints`,
        async ({ body, set }) => {
          const created = await endpoints.create({
            orgKey: body.organization,
            url: body.url,
            description: body.description ?? null,
            events: body.events,
            rateLimitPerS: body.rate_limit_per_s ?? null,
          });
          set.status = 201;
          return created;
        },
        {
          body: t.Object({
            organization: t.String({ minLength: 1, maxLength: 200 }),
            url: t.String({ minLength: 1, maxLength: 2000 }),
            description: t.Optional(t.Nullable(t.String({ maxLength: 500 }))),
            events: t.Optional(t.Array(t.String({ maxLength: 100 }), { maxItems: 50 })),
            rate_limit_per_s: t.Optional(rateLimitSchema),
          }),
        },
      )
      .get(`${adminPrefix}/endpoints/:id`, ({ params }) => endpoints.get(params.id))
      .patch(
        `${adminPrefix}/endpoints/:id`,
        ({ params, body }) =>
          endpoints.update(params.id, {
            url: body.url,
            description: body.description,
            events: body.events,
            rateLimitPerS: body.rate_limit_per_s,
          }),
        {
          body: t.Object({
            url: t.Optional(t.String({ minLength: 1, maxLength: 2000 })),
            description: t.Optional(t.Nullable(t.String({ maxLength: 500 }))),
            events: t.Optional(t.Array(t.String({ maxLength: 100 }), { maxItems: 50 })),
            rate_limit_per_s: t.Optional(rateLimitSchema),
          }),
        },
      )
      .get(`${adminPrefix}/endpoints/:id/secret`, async ({ params, request, set }) => {
        // Signing secrets are shown to owners and admins only; a viewer reads everything else.
        if (context.sessionOf(request).user.role === "viewer") {
          throw new CodedError("forbidden", "Signing secrets are shown to owners and admins only.");
        }
        set.headers["cache-control"] = "no-store";
        const secret = await endpoints.secret(params.id);
        return { secret: secret.secret, previous_secret: secret.previous, previous_valid_until: secret.previousUntil };
      })
      .post(
        `${adminPrefix}/endpoints/:id/rotate-secret`,
        async ({ params, body, set }) => {
          set.headers["cache-control"] = "no-store";
          const rotated = await endpoints.rotateSecret(params.id, (body?.grace_hours ?? 24) * 3_600_000);
          return { secret: rotated.secret, previous_valid_until: rotated.previousValidUntil };
        },
        { body: t.Optional(t.Object({ grace_hours: t.Optional(t.Integer({ minimum: 0, maximum: 24 * 30 })) })) },
      )
      .post(
        `${adminPrefix}/endpoints/:id/enable`,
        async ({ params, body }) => {
          const enabled = await endpoints.enable(params.id, { discardHeld: body?.discard_held ?? false });
          eventRecorded();
          return enabled;
        },
        { body: t.Optional(t.Object({ discard_held: t.Optional(t.Boolean()) })) },
      )
      .post(
        `${adminPrefix}/endpoints/:id/resend`,
        async ({ params, body }) => {
          await endpoints.resend(params.id, body.message_id);
          eventRecorded();
          return { message_id: body.message_id };
        },
        { body: t.Object({ message_id: t.String({ minLength: 1, maxLength: 100 }) }) },
      )
      // A time range of the endpoint's messages again, as `fieldhub endpoints resend --since` (docs/webhooks.md).
      .post(
        `${adminPrefix}/endpoints/:id/resend-range`,
        async ({ params, body }) => {
          const since = rangeTime(body.since, "since");
          const until = body.until === undefined ? context.now() : rangeTime(body.until, "until");
          const status = body.status ?? "failed";
          const { endpoint, deliveryIds } = await endpoints.resendRange(params.id, { since, until, status });
          eventRecorded();
          return { queued: deliveryIds.length, held: endpoint.status === "paused", status };
        },
        {
          body: t.Object({
            since: t.String({ maxLength: 40 }),
            until: t.Optional(t.String({ maxLength: 40 })),
            status: t.Optional(t.UnionEnum(resendStatuses)),
          }),
        },
      )
      .post(`${adminPrefix}/endpoints/:id/test`, async ({ params }) => {
        const messageId = await endpoints.sendTest(params.id);
        eventRecorded();
        return { message_id: messageId };
      })
      .get(
        `${adminPrefix}/endpoints/:id/deliveries`,
        async ({ params, query, request }) => ({
          data: await endpoints.deliveries(params.id, query.limit ?? 50, {
            excerpts: context.sessionOf(request).user.role !== "viewer",
          }),
        }),
        { query: t.Object({ limit: t.Optional(t.Numeric({ minimum: 1, maximum: 500, multipleOf: 1 })) }) },
      )
  );
}
