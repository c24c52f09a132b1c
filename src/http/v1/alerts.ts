import { Elysia, t } from "elysia";
import { isoFromMs } from "../../lib/clock.ts";
import { CodedError } from "../../lib/errors.ts";
import { presentAlert } from "../../lib/present-alert.ts";
import { alertSeverities, alertStatuses } from "../../store/contract/alerts.ts";
import { lookupErrors, offsetMeta, offsetPaging } from "./common.ts";
import { guardRoute, principalOf, type V1Deps } from "./deps.ts";
import { Alert, OffsetMeta } from "./models.ts";
import { optionalEnum, queryObject } from "./query.ts";

const ListAlertsQuery = queryObject({
  status: optionalEnum("status", alertStatuses),
  severity: optionalEnum("severity", alertSeverities),
  device_id: t.Optional(t.String({ title: "device_id", format: "uuid", description: "only alerts of this gateway" })),
  ...offsetPaging,
});

/** GET /alerts (scope alerts:read). */
export function alertRoutes(deps: V1Deps) {
  return new Elysia().get(
    "/v1/alerts",
    async ({ request, query }) => {
      const key = principalOf(deps, request);
      const limit = query.limit ?? 50;
      const offset = query.offset ?? 0;
      let gatewayId: number | undefined;
      if (query.device_id !== undefined) {
        const found = await deps.gateways.locate(key.orgId, query.device_id);
        if (found === null) throw new CodedError("not_found", `No gateway ${query.device_id}.`);
        gatewayId = found;
      }
      const { rows, total } = await deps.alerts.list(key.orgId, {
        status: query.status,
        severity: query.severity,
        gatewayId,
        limit,
        offset,
      });
      return deps.json(request, {
        data: rows.map((row) => presentAlert(row, isoFromMs)),
        meta: offsetMeta(total, limit, offset),
      });
    },
    {
      query: ListAlertsQuery,
      transform: guardRoute(deps, "listAlerts", ListAlertsQuery),
      response: { 200: t.Object({ data: t.Array(Alert), meta: OffsetMeta }), ...lookupErrors },
      detail: {
        operationId: "listAlerts",
        summary: "List alerts",
        description: "Alerts of the organisation, most recently triggered first.",
        tags: ["Alerts"],
      },
    },
  );
}
