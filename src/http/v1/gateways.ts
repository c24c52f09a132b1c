import { Elysia, t } from "elysia";
import { isoOrNull } from "../../lib/clock.ts";
import { CodedError } from "../../lib/errors.ts";
import { gatewayStatuses } from "../../store/contract/gateways.ts";
import { gatewayIdParams, lookupErrors, offsetMeta, offsetPaging, queryErrors } from "./common.ts";
import { guardRoute, principalOf, type V1Deps } from "./deps.ts";
import { Gateway, GatewayDetail, OffsetMeta } from "./models.ts";
import { presentGateway, presentModbusDevice, presentModbusServer } from "./present.ts";
import { optionalEnum, queryObject } from "./query.ts";

const ListGatewaysQuery = queryObject({
  status: optionalEnum("status", gatewayStatuses, "filters by status"),
  ...offsetPaging,
});

/** GET /devices and GET /devices/{id} (scope devices:read). */
export function gatewayRoutes(deps: V1Deps) {
  return new Elysia()
    .get(
      "/v1/devices",
      async ({ request, query }) => {
        const key = principalOf(deps, request);
        const limit = query.limit ?? 50;
        const offset = query.offset ?? 0;
        const { rows, total } = await deps.gateways.list(key.orgId, { status: query.status, limit, offset });
        return deps.json(request, { data: rows.map(presentGateway), meta: offsetMeta(total, limit, offset) });
      },
      {
        query: ListGatewaysQuery,
        transform: guardRoute(deps, "listGateways", ListGatewaysQuery),
        response: { 200: t.Object({ data: t.Array(Gateway), meta: OffsetMeta }), ...queryErrors },
        detail: {
          operationId: "listGateways",
          summary: "List gateways",
          description: "All gateways of the organisation, most recently seen first.",
          tags: ["Gateways"],
        },
      },
    )
    .get(
      "/v1/devices/:id",
      async ({ request, params }) => {
        const key = principalOf(deps, request);
        const gateway = await deps.gateways.find(key.orgId, params.id);
        if (gateway === null) throw new CodedError("not_found", `No gateway ${params.id}.`);
        return deps.json(request, {
          data: {
            ...presentGateway(gateway),
            claimed_at: isoOrNull(gateway.claimedAt),
            modbus_devices: (await deps.gateways.modbusDevices(gateway.id)).map((device) =>
              presentModbusDevice(device, deps.deviceHealth),
            ),
            modbus_server: presentModbusServer(deps.modbusServerView(gateway.uuid)),
          },
        });
      },
      {
        params: gatewayIdParams,
        transform: guardRoute(deps, "getGateway"),
        response: { 200: t.Object({ data: GatewayDetail }), ...lookupErrors },
        detail: {
          operationId: "getGateway",
          summary: "Get a gateway",
          description: "One gateway with its customer and the Modbus devices it reads.",
          tags: ["Gateways"],
        },
      },
    );
}
