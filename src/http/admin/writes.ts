/**
 * Register writes from the admin page (docs/admin.md): the audit of every
 * attempt, and setting a writable register's value from the gateway view. Owners and
 * admins only (the router refuses a viewer's change); the organisation must have
 * writes enabled, as for the API (docs/api.md section 5.8).
 */
import { Elysia, t } from "elysia";
import { CodedError } from "../../lib/errors.ts";
import type { Organization } from "../../store/contract/organizations.ts";
import { presentWrite } from "../presenters/register-writes.ts";
import { type AdminContext, adminPrefix } from "./context.ts";

const gatewayTimeout = 504;

export function adminWriteRoutes(context: AdminContext) {
  const { store } = context;
  return new Elysia({ name: "admin-writes" })
    .get(
      `${adminPrefix}/writes`,
      async ({ query }) => {
        let orgId: number | undefined;
        if (query.organization !== undefined) {
          const organization = await store.organizations.findByKey(query.organization);
          if (organization === null) throw new CodedError("not_found", `No organisation "${query.organization}".`);
          orgId = organization.id;
        }
        return { data: (await store.writes.list({ orgId, limit: query.limit ?? 100 })).map(presentWrite) };
      },
      {
        query: t.Object({
          organization: t.Optional(t.String({ maxLength: 200 })),
          limit: t.Optional(t.Numeric({ minimum: 1, maximum: 1000, multipleOf: 1 })),
        }),
      },
    )
    .put(
      `${adminPrefix}/gateways/:id/registers/:register_id`,
      async ({ request, params, body }) => {
        const session = context.sessionOf(request);
        let found: { org: Organization; gatewayId: number } | undefined;
        for (const org of await store.organizations.list()) {
          const gatewayId = await store.gateways.locate(org.id, params.id);
          if (gatewayId !== null) {
            found = { org, gatewayId };
            break;
          }
        }
        if (found === undefined) throw new CodedError("not_found", `No gateway ${params.id}.`);
        const target = await store.writes.target(found.gatewayId, params.register_id);
        if (target === null)
          throw new CodedError("not_found", `Gateway ${params.id} has no register ${params.register_id}.`);
        if (!(await store.organizations.writesEnabled(found.org.id))) {
          throw new CodedError(
            "write_not_enabled",
            `Writing registers is not enabled for organisation "${found.org.key}" (writes_enabled in the config).`,
          );
        }
        if (!target.isWritable) throw new CodedError("invalid_parameter", `register "${target.name}" is not writable.`);
        if (context.writeRegister === undefined)
          throw new CodedError("conflict", "This server polls no equipment; nothing was written.");
        const outcome = await context.writeRegister({
          orgId: found.org.id,
          actor: `user:${session.user.username}`,
          gatewayId: params.id,
          registerId: target.uuid,
          value: body.value,
        });
        if (outcome.result === "invalid") throw new CodedError("invalid_parameter", `value: ${outcome.detail}.`);
        if (outcome.result === "timeout") {
          throw new CodedError(
            "internal_error",
            `${outcome.detail} (write ${outcome.auditId}).`,
            undefined,
            gatewayTimeout,
          );
        }
        if (outcome.result !== "written")
          throw new CodedError("conflict", `${outcome.detail} (write ${outcome.auditId}).`);
        return {
          id: outcome.auditId,
          result: outcome.result,
          value_before: outcome.valueBefore,
          read_back: outcome.readBack,
        };
      },
      {
        params: t.Object({ id: t.String({ format: "uuid" }), register_id: t.String({ format: "uuid" }) }),
        body: t.Object({ value: t.Number() }),
      },
    );
}
