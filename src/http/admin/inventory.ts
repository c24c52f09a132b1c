/**
 * What the admin page shows of the equipment (docs/admin.md): every gateway of
 * every organisation with its status, its Modbus devices and their registers'
 * latest values, and one register's recent history for the chart. Read only;
 * the session check of the admin router (router.ts) runs before these routes.
 */
import { Elysia, t } from "elysia";
import { apiScopes } from "../../lib/api-keys.ts";
import type { Clock } from "../../lib/clock.ts";
import type { DeviceHealthReader } from "../../lib/device-health.ts";
import { CodedError } from "../../lib/errors.ts";
import type { ModbusServerViewReader } from "../../lib/modbus-server-view.ts";
import { aggregateScaler } from "../../lib/reading-aggregate.ts";
import { scalerFor } from "../../lib/register-scaling.ts";
import { eventTypes } from "../../store/contract/events.ts";
import { gatewayStatuses } from "../../store/contract/gateways.ts";
import type { Store } from "../../store/index.ts";
import { presentGateway, presentModbusDevice, presentModbusServer, presentRegister } from "../v1/present.ts";
import { optionalEnum } from "../v1/query.ts";
import { adminPrefix as prefix } from "./context.ts";

/** Stored density is at most one value a minute: a week is at most 10,080 points. */
const maxHistoryHours = 7 * 24;
const maxHistoryPoints = maxHistoryHours * 60;
const gatewaysPerOrganization = 1000;

export function adminInventoryRoutes(
  store: Store,
  clock: Clock,
  deviceHealth: DeviceHealthReader,
  modbusServerView: ModbusServerViewReader = () => null,
) {
  const { gateways, registers, readings } = store;

  /** A gateway's UUID is unique across organisations; the box has few of them. */
  async function findGateway(uuid: string) {
    for (const org of await store.organizations.list()) {
      const row = await gateways.find(org.id, uuid);
      if (row !== null) return { org, row };
    }
    throw new CodedError("not_found", `No gateway ${uuid}.`);
  }

  return (
    new Elysia({ name: "admin-inventory" })
      // What the page's forms offer: organisations, key scopes, event types.
      .get(`${prefix}/choices`, async () => ({
        organizations: (await store.organizations.list()).map((org) => ({ key: org.key, name: org.name })),
        scopes: apiScopes,
        event_types: eventTypes,
      }))
      .get(
        `${prefix}/gateways`,
        async ({ query }) => {
          const rows = [];
          for (const org of await store.organizations.list()) {
            if (query.organization !== undefined && org.key !== query.organization) continue;
            const page = await gateways.list(org.id, {
              status: query.status,
              limit: gatewaysPerOrganization,
              offset: 0,
            });
            for (const row of page.rows) {
              rows.push({
                organization: org.key,
                ...presentGateway(row),
                modbus_devices: (await gateways.modbusDevices(row.id)).length,
              });
            }
          }
          // As GET /v1/devices: most recently seen first, never seen last, then by name.
          rows.sort(
            (a, b) =>
              Number(a.last_seen === null) - Number(b.last_seen === null) ||
              (b.last_seen ?? "").localeCompare(a.last_seen ?? "") ||
              a.name.localeCompare(b.name),
          );
          return { data: rows };
        },
        {
          query: t.Object({
            organization: t.Optional(t.String({ maxLength: 200 })),
            status: optionalEnum("status", gatewayStatuses),
          }),
        },
      )
      // The gateway with its devices and their registers' latest values; the page polls this.
      .get(
        `${prefix}/gateways/:id`,
        async ({ params, set }) => {
          const { org, row } = await findGateway(params.id);
          const byDevice = new Map<string, ReturnType<typeof presentRegister>[]>();
          const now = clock.now();
          for (const register of await registers.list(row.id)) {
            // The bounds a write may set, for the page's set-value form.
            const presented = {
              ...presentRegister(register, deviceHealth, now),
              write_min: register.writeMin,
              write_max: register.writeMax,
            };
            const list = byDevice.get(presented.modbus_device_id);
            if (list === undefined) byDevice.set(presented.modbus_device_id, [presented]);
            else list.push(presented);
          }
          set.headers["cache-control"] = "no-store";
          return {
            organization: org.key,
            writes_enabled: await store.organizations.writesEnabled(org.id),
            gateway: presentGateway(row),
            // The gateway's Modbus TCP server, as on /v1 (docs/api.md section 2.5), or null.
            modbus_server: presentModbusServer(modbusServerView(row.uuid)),
            modbus_devices: (await gateways.modbusDevices(row.id)).map((device) => ({
              ...presentModbusDevice(device, deviceHealth),
              registers: byDevice.get(device.uuid) ?? [],
            })),
            server_time: new Date(clock.now()).toISOString(),
          };
        },
        { params: t.Object({ id: t.String({ format: "uuid" }) }) },
      )
      // One register's stored history, oldest first, as the chart wants it:
      // parallel arrays of Unix seconds and engineering values, and each reading's
      // period min and max (null where it has no aggregate: docs/api.md section 4.6).
      .get(
        `${prefix}/gateways/:id/history`,
        async ({ params, query, set }) => {
          const { row } = await findGateway(params.id);
          const register = (await registers.list(row.id)).find(
            (candidate) => candidate.uuid === query.register_id.toLowerCase(),
          );
          if (register === undefined)
            throw new CodedError("not_found", `Gateway ${params.id} has no register ${query.register_id}.`);
          const until = clock.now() + 1;
          const hours = query.hours ?? 24;
          const page = await readings.page({
            registerIds: [register.id],
            since: until - hours * 3_600_000,
            until,
            order: "asc",
            limit: maxHistoryPoints,
            after: null,
          });
          const scale = scalerFor(register.scaleFactor);
          const scaleAggregate = aggregateScaler(register.scaleFactor);
          const spans = page.rows.map((reading) =>
            reading.aggregate === undefined || reading.aggregate === null ? null : scaleAggregate(reading.aggregate),
          );
          set.headers["cache-control"] = "no-store";
          return {
            register_id: register.uuid,
            name: register.name,
            unit: register.unit,
            hours,
            t: page.rows.map((reading) => reading.ts / 1000),
            v: page.rows.map((reading) => (reading.rawValue === null ? null : scale(reading.rawValue))),
            min: spans.map((span) => span?.min ?? null),
            max: spans.map((span) => span?.max ?? null),
          };
        },
        {
          params: t.Object({ id: t.String({ format: "uuid" }) }),
          query: t.Object({
            register_id: t.String({ format: "uuid" }),
            hours: t.Optional(t.Numeric({ minimum: 1, maximum: maxHistoryHours, multipleOf: 1 })),
          }),
        },
      )
  );
}
