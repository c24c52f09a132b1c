/** Alerts in the admin API (docs/api.md section 3), changed through the same service as `fieldhub alerts`. */
import { Elysia, t } from "elysia";
import { alertService } from "../../alerting/alerts-service.ts";
import { isoFromMs } from "../../lib/clock.ts";
import { CodedError } from "../../lib/errors.ts";
import { presentAlert } from "../../lib/present-alert.ts";
import { alertSeverities, alertStatuses } from "../../store/contract/alerts.ts";
import { presentAlertStatusChange } from "../v1/present.ts";
import { optionalEnum } from "../v1/query.ts";
import { type AdminContext, adminPrefix } from "./context.ts";

const Note = t.Optional(t.Object({ note: t.Optional(t.Nullable(t.String({ maxLength: 2000 }))) }));
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function checkUuid(id: string): string {
  if (!uuidPattern.test(id)) throw new CodedError("not_found", `No alert ${id}.`);
  return id;
}

export function adminAlertRoutes(context: AdminContext) {
  const { store } = context;
  const alertsRead = store.alerts;
  const gateways = store.gateways;
  const alerts = alertService(store, context.now, context.onEvent);

  return new Elysia({ name: "admin-alerts" })
    .get(
      `${adminPrefix}/alerts`,
      async ({ query }) => {
        const limit = query.limit ?? 100;
        const organizations =
          query.organization === undefined
            ? await store.organizations.list()
            : [await store.organizations.findByKey(query.organization)].filter((org) => org !== null);
        if (organizations.length === 0) {
          throw new CodedError("not_found", `No organisation "${query.organization}".`);
        }
        const rows = [];
        let total = 0;
        for (const org of organizations) {
          let gatewayId: number | undefined;
          if (query.device_id !== undefined) {
            const found = await gateways.locate(org.id, query.device_id);
            if (found === null) continue;
            gatewayId = found;
          }
          const page = await alertsRead.list(org.id, {
            status: query.status,
            severity: query.severity,
            gatewayId,
            limit,
            offset: 0,
          });
          total += page.total;
          for (const row of page.rows) rows.push({ organization: org.key, ...presentAlert(row, isoFromMs) });
        }
        rows.sort((a, b) => (b.last_triggered_at ?? "").localeCompare(a.last_triggered_at ?? ""));
        return { data: rows.slice(0, limit), meta: { total } };
      },
      {
        query: t.Object({
          organization: t.Optional(t.String({ maxLength: 200 })),
          status: optionalEnum("status", alertStatuses),
          severity: optionalEnum("severity", alertSeverities),
          device_id: t.Optional(t.String({ format: "uuid" })),
          limit: t.Optional(t.Numeric({ minimum: 1, maximum: 1000, multipleOf: 1 })),
        }),
      },
    )
    .post(
      `${adminPrefix}/alerts/:id/acknowledge`,
      async ({ params, body }) =>
        presentAlertStatusChange(await alerts.acknowledge(checkUuid(params.id), body?.note ?? null)),
      { params: t.Object({ id: t.String() }), body: Note },
    )
    .post(
      `${adminPrefix}/alerts/:id/resolve`,
      async ({ params, body }) =>
        presentAlertStatusChange(await alerts.resolve(checkUuid(params.id), body?.note ?? null)),
      { params: t.Object({ id: t.String() }), body: Note },
    );
}
