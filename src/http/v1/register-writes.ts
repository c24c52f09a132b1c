/**
 * PUT /devices/{id}/registers/{register_id} (scope registers:write): writes
 * a value in engineering units through the gateway's poller and answers the register
 * with the value read back from the device. docs/api.md sections 1 and 5.8: an organisation
 * not enabled hears 403 write_not_enabled whatever the key's scopes, so that is
 * decided before the scope.
 */
import { Elysia, t } from "elysia";
import { CodedError } from "../../lib/errors.ts";
import { requireScope } from "../api-gate.ts";
import { commonErrors } from "./common.ts";
import { principalOf, type V1Deps } from "./deps.ts";
import { Problem, Register } from "./models.ts";
import { presentRegister } from "./present.ts";
import { operationScopes } from "./scopes.ts";

const WriteParams = t.Object({
  id: t.String({ title: "id", format: "uuid", description: "gateway id, from GET /devices" }),
  register_id: t.String({
    title: "register_id",
    format: "uuid",
    description: "register id, from GET /devices/{id}/registers",
  }),
});

const WriteBody = t.Object(
  {
    value: t.Number({
      title: "value",
      description: "the value to set, in engineering units (raw = value / scale_factor)",
    }),
  },
  { additionalProperties: false },
);

const gatewayTimeout = 504;

export function registerWriteRoutes(deps: V1Deps) {
  return new Elysia().put(
    "/v1/devices/:id/registers/:register_id",
    async ({ request, params, body }) => {
      const key = principalOf(deps, request);
      const gatewayId = await deps.gateways.locate(key.orgId, params.id);
      if (gatewayId === null) throw new CodedError("not_found", `No gateway ${params.id}.`);
      const target = await deps.store.writes.target(gatewayId, params.register_id);
      if (target === null)
        throw new CodedError("not_found", `Gateway ${params.id} has no register ${params.register_id}.`);
      if (!target.isWritable) {
        throw new CodedError("invalid_parameter", `register_id: register "${target.name}" is not writable.`);
      }
      if (deps.writeRegister === undefined)
        throw new CodedError("conflict", "This server polls no equipment; nothing was written.");
      const outcome = await deps.writeRegister({
        orgId: key.orgId,
        actor: `key:${key.id}`,
        gatewayId: params.id,
        registerId: target.uuid,
        value: body.value,
      });
      switch (outcome.result) {
        case "invalid":
          throw new CodedError("invalid_parameter", `value: ${outcome.detail ?? "cannot be written"}.`);
        case "refused":
        case "mismatch":
        case "not_sent":
          throw new CodedError("conflict", `${outcome.detail ?? outcome.result} (write ${outcome.auditId}).`);
        case "timeout":
          throw new CodedError(
            "internal_error",
            `${outcome.detail} (write ${outcome.auditId}).`,
            undefined,
            gatewayTimeout,
          );
        case "written":
          break;
      }
      const row = (await deps.registers.list(gatewayId)).find((candidate) => candidate.uuid === target.uuid);
      if (row === undefined) throw new Error(`register ${target.uuid} left the store during a write`);
      // The read-back is newer than what ingest may have flushed yet.
      const now = deps.clock.now();
      return deps.json(request, {
        data: presentRegister({ ...row, latestRawValue: outcome.readBackRaw, latestTs: now }, deps.deviceHealth, now),
      });
    },
    {
      params: WriteParams,
      body: WriteBody,
      transform: async ({ request }) => {
        const key = deps.stateOf(request).principal;
        if (key !== null && !(await deps.store.organizations.writesEnabled(key.orgId))) {
          throw new CodedError("write_not_enabled", "Writing registers is not enabled for this organisation.");
        }
        const principal = requireScope(key, operationScopes.writeRegister);
        if (principal.kind === "sandbox") {
          throw new CodedError(
            "insufficient_scope",
            `The sandbox key is read-only; this endpoint needs the scope "${operationScopes.writeRegister}".`,
          );
        }
      },
      response: {
        200: t.Object({ data: Register }),
        ...commonErrors,
        400: Problem,
        404: Problem,
        409: Problem,
        504: Problem,
      },
      detail: {
        operationId: "writeRegister",
        summary: "Write a register",
        description: [
          "Scope `registers:write`. Sets a writable register (`is_writable`) to `value` in engineering units (raw = value / scale_factor), through the gateway's own connection between two polls, and answers the register with the value read back from the device in `latest_value`. Counts against the key's rate limit. Every attempt is kept in the write audit and sent as a `register.written` event.",
          "Answers: 403 `write_not_enabled` when the organisation does not have writes enabled (whatever the scopes); 403 `insufficient_scope` without the scope (the sandbox key never has it); 404 `not_found` for a gateway or register not in the organisation; 400 `invalid_parameter` for a missing or non-numeric value, a value outside the register's [min, max], one not exactly representable in its data type, or a register that is not writable; 409 `conflict` when the device refused the write (its Modbus exception code in `detail`), read back a different value, or the write could not be sent; 504 `internal_error` when the device did not answer the write in time: the outcome is unknown, the write is not retried, and the audit records the value read at the next opportunity.",
        ].join("\n\n"),
        tags: ["Registers"],
      },
    },
  );
}
