import { Elysia, t } from "elysia";
import { CodedError } from "../../lib/errors.ts";
import { gatewayIdParams, lookupErrors } from "./common.ts";
import { guardRoute, principalOf, type V1Deps } from "./deps.ts";
import { Register } from "./models.ts";
import { presentRegister } from "./present.ts";
import { queryObject } from "./query.ts";

const ListRegistersQuery = queryObject({
  modbus_device_id: t.Optional(
    t.String({ title: "modbus_device_id", format: "uuid", description: "only registers of this Modbus device" }),
  ),
});

/** GET /devices/{id}/registers (scope registers:read): current state, for polling. */
export function registerRoutes(deps: V1Deps) {
  return new Elysia().get(
    "/v1/devices/:id/registers",
    async ({ request, params, query }) => {
      const key = principalOf(deps, request);
      const gatewayId = await deps.gateways.locate(key.orgId, params.id);
      if (gatewayId === null) throw new CodedError("not_found", `No gateway ${params.id}.`);
      let modbusDeviceId: number | undefined;
      if (query.modbus_device_id !== undefined) {
        const found = await deps.gateways.findModbusDeviceId(gatewayId, query.modbus_device_id);
        if (found === null) {
          throw new CodedError("not_found", `Gateway ${params.id} has no Modbus device ${query.modbus_device_id}.`);
        }
        modbusDeviceId = found;
      }
      const now = deps.clock.now();
      return deps.json(request, {
        data: (await deps.registers.list(gatewayId, modbusDeviceId)).map((register) =>
          presentRegister(register, deps.deviceHealth, now),
        ),
      });
    },
    {
      params: gatewayIdParams,
      query: ListRegistersQuery,
      transform: guardRoute(deps, "listRegisters", ListRegistersQuery),
      response: { 200: t.Object({ data: t.Array(Register) }), ...lookupErrors },
      detail: {
        operationId: "listRegisters",
        summary: "List registers with latest values",
        description: "Every register of the gateway with its latest value. Intended for polling the current state.",
        tags: ["Registers"],
      },
    },
  );
}
