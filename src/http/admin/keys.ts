/** API keys in the admin API (docs/api.md section 5): the key itself is shown once, on creation. */
import { Elysia, t } from "elysia";
import { apiKeyStatus, apiScopes } from "../../lib/api-keys.ts";
import { CodedError } from "../../lib/errors.ts";
import { parseRfc3339 } from "../../lib/timestamps.ts";
import { UnknownOrganizationError } from "../../store/contract/keys.ts";
import { presentApiKey, presentCreatedApiKey } from "../presenters/api-keys.ts";
import { type AdminContext, adminPrefix } from "./context.ts";

export function adminKeyRoutes(context: AdminContext) {
  const { store, now } = context;
  return new Elysia({ name: "admin-keys" })
    .get(
      `${adminPrefix}/keys`,
      async ({ query }) => ({
        data: (await store.keys.list(query.organization)).map((key) => ({
          ...presentApiKey(key),
          status: apiKeyStatus(key, now()),
        })),
      }),
      { query: t.Object({ organization: t.Optional(t.String({ maxLength: 200 })) }) },
    )
    .post(
      `${adminPrefix}/keys`,
      async ({ body, set }) => {
        let expiresAt: number | null = null;
        if (body.expires_at !== undefined && body.expires_at !== null) {
          expiresAt = parseRfc3339(body.expires_at);
          if (expiresAt === null) throw new CodedError("invalid_parameter", "expires_at: not an RFC 3339 date-time.");
          if (expiresAt <= now()) throw new CodedError("invalid_parameter", "expires_at: lies in the past.");
        }
        try {
          const created = await store.keys.create(
            { orgKey: body.organization, name: body.name, scopes: [...new Set(body.scopes)], expiresAt },
            now(),
          );
          set.status = 201;
          set.headers["cache-control"] = "no-store";
          return { ...presentCreatedApiKey(created), status: "active" };
        } catch (error) {
          if (error instanceof UnknownOrganizationError) {
            throw new CodedError("invalid_parameter", `organization: no organisation "${error.orgKey}".`);
          }
          throw error;
        }
      },
      {
        body: t.Object({
          organization: t.String({ minLength: 1, maxLength: 200 }),
          name: t.String({ minLength: 1, maxLength: 200 }),
          scopes: t.Array(t.UnionEnum(apiScopes), { maxItems: apiScopes.length * 2 }),
          expires_at: t.Optional(t.Nullable(t.String({ maxLength: 64 }))),
        }),
      },
    )
    .post(
      `${adminPrefix}/keys/:id/revoke`,
      async ({ params }) => {
        const revoked = await store.keys.revoke(params.id, now());
        if (revoked === 0) throw new CodedError("not_found", `No unrevoked key ${params.id}.`);
        return { revoked };
      },
      { params: t.Object({ id: t.String({ minLength: 1, maxLength: 100 }) }) },
    );
}
