import { Elysia, t } from "elysia";
import { isoFromMs } from "../../lib/clock.ts";
import { CodedError } from "../../lib/errors.ts";
import { uuidPattern } from "../../lib/ids.ts";
import { parseRfc3339 } from "../../lib/timestamps.ts";
import { findGateway } from "../../store/gateways.ts";
import { scaleValue } from "../../store/registers.ts";
import { gatewayIdParams, lookupErrors } from "./common.ts";
import { principalOf, scopeCheck, type V1Deps } from "./deps.ts";
import { queryObject, optionalEnum } from "./query.ts";
import { CursorMeta, Reading } from "./models.ts";
import { decodeCursor, encodeCursor, parameterFingerprint } from "./readings-cursor.ts";

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;
/** Spec section 4, rule 1 and section 8. */
const defaultWindowMs = 24 * hourMs;
const maxWindowMs = 7 * dayMs;
const maxSingleRegisterWindowMs = 366 * dayMs;

const ListReadingsQuery = queryObject(
  {
    register_id: t.Optional(
      t.String({ title: "register_id", description: "one register id, or several separated by commas; default all registers" }),
    ),
    since: t.Optional(t.String({ title: "since", format: "date-time", description: "start of window, inclusive; default until - 24 h" })),
    until: t.Optional(t.String({ title: "until", format: "date-time", description: "end of window, exclusive; default now" })),
    order: optionalEnum("order", ["desc", "asc"], "default desc"),
    limit: t.Optional(t.Integer({ title: "limit", minimum: 1, maximum: 1000, default: 100, description: "1 to 1000" })),
    cursor: t.Optional(
      t.String({
        title: "cursor",
        maxLength: 256,
        description: "meta.next_cursor of the previous page; the other parameters must be the same as on that request",
      }),
    ),
  },
);

type RegisterInfo = {
  uuid: string;
  modbusDeviceUuid: string;
  name: string;
  unit: string | null;
  scaleFactor: number | null;
};

/** GET /devices/{id}/readings (scope registers:read): history in a window, paged by cursor. */
export function readingRoutes(deps: V1Deps) {
  const registerInfo = deps.store.sqlite.prepare<RegisterInfo & { id: number }, [number]>(
    `SELECT r.id AS id, r.uuid AS uuid, d.uuid AS modbusDeviceUuid, r.name AS name, r.unit AS unit,
            r.scale_factor AS scaleFactor
       FROM registers r JOIN modbus_devices d ON d.id = r.modbus_device_id WHERE r.gateway_id = ?`,
  );

  return new Elysia().get(
    "/v1/devices/:id/readings",
    ({ request, params, query }) => {
      const key = principalOf(deps, request);
      const gateway = findGateway(deps.store, key.orgId, params.id);
      if (gateway === null) throw new CodedError("not_found", `No gateway ${params.id}.`);

      const registersById = new Map<number, RegisterInfo>();
      const idByUuid = new Map<string, number>();
      for (const row of registerInfo.all(gateway.id)) {
        registersById.set(row.id, row);
        idByUuid.set(row.uuid, row.id);
      }
      const registerIds = resolveRegisterIds(query.register_id, idByUuid, params.id);
      const order = query.order ?? "desc";
      const limit = query.limit ?? 100;
      const requestedSince = parseTime("since", query.since);
      const requestedUntil = parseTime("until", query.until);
      const fingerprint = parameterFingerprint({
        gateway: params.id,
        register_id: query.register_id,
        since: requestedSince,
        until: requestedUntil,
        order,
        limit,
      });

      let since: number;
      let until: number;
      let after: { ts: number; registerId: number } | null = null;
      if (query.cursor !== undefined) {
        const decoded = decodeCursor(deps.cursorSecret, fingerprint, query.cursor);
        if (!decoded.ok) {
          throw new CodedError(
            "invalid_parameter",
            decoded.reason === "other_parameters"
              ? "cursor: it belongs to a request with other parameters; repeat the previous request's parameters with it."
              : "cursor: not a cursor this service issued (malformed or altered).",
          );
        }
        ({ since, until } = decoded.state);
        after = { ts: decoded.state.lastTs, registerId: decoded.state.lastRegisterId };
      } else {
        const now = deps.clock.now();
        until = requestedUntil ?? now;
        since = requestedSince ?? until - defaultWindowMs;
        checkWindow(since, until, registerIds.length === 1 && query.register_id !== undefined);
        // The traversal sees history up to the moment of its first page, so
        // readings arriving later cannot shift rows between pages.
        until = Math.max(since, Math.min(until, now));
      }

      const page = deps.readings.page({ registerIds, since, until, order, limit, after });
      const data = page.rows.map((row) => {
        const register = registersById.get(row.registerId);
        return {
          register_id: register?.uuid ?? "",
          modbus_device_id: register?.modbusDeviceUuid ?? null,
          name: register?.name ?? null,
          unit: register?.unit ?? null,
          value: scaleValue(row.rawValue, register?.scaleFactor ?? null),
          raw_value: row.rawValue,
          ts: isoFromMs(row.ts),
        };
      });
      const last = page.rows.at(-1);
      const nextCursor =
        page.hasMore && last !== undefined
          ? encodeCursor(deps.cursorSecret, fingerprint, {
              since,
              until,
              lastTs: last.ts,
              lastRegisterId: last.registerId,
            })
          : null;
      return {
        data,
        meta: {
          since: isoFromMs(since),
          until: isoFromMs(until),
          order,
          limit,
          has_more: page.hasMore,
          next_cursor: nextCursor,
        },
      };
    },
    {
      params: gatewayIdParams,
      query: ListReadingsQuery,
      transform: scopeCheck(deps, "registers:read"),
      response: { 200: t.Object({ data: t.Array(Reading), meta: CursorMeta }), ...lookupErrors },
      detail: {
        operationId: "listReadings",
        summary: "Reading history",
        description:
          "Readings of the gateway in a time window, newest first unless order=asc. The window may be at most 7 days, or 366 days with exactly one register_id. Follow meta.next_cursor (with the same other parameters) until has_more is false; pages never skip or repeat rows.",
        tags: ["Readings"],
      },
    },
  );
}

function resolveRegisterIds(list: string | undefined, idByUuid: Map<string, number>, gatewayUuid: string): number[] {
  if (list === undefined) return [...idByUuid.values()];
  const ids = new Set<number>();
  for (const part of list.split(",")) {
    const uuid = part.trim().toLowerCase();
    if (!uuidPattern.test(uuid)) {
      throw new CodedError("invalid_parameter", `register_id: "${part.slice(0, 64)}" is not a UUID.`);
    }
    const id = idByUuid.get(uuid);
    if (id === undefined) throw new CodedError("not_found", `Gateway ${gatewayUuid} has no register ${uuid}.`);
    ids.add(id);
  }
  return [...ids];
}

function parseTime(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseRfc3339(text);
  if (ms === null) {
    throw new CodedError(
      "invalid_parameter",
      `${name}: "${text.slice(0, 64)}" is not an RFC 3339 date-time (for example 2026-01-31T12:00:00Z).`,
    );
  }
  return ms;
}

function checkWindow(since: number, until: number, singleRegister: boolean): void {
  if (since > until) throw new CodedError("invalid_parameter", "since: must not be later than until.");
  const allowed = singleRegister ? maxSingleRegisterWindowMs : maxWindowMs;
  if (until - since > allowed) {
    throw new CodedError(
      "invalid_parameter",
      singleRegister
        ? "since/until: the window may be at most 366 days with one register_id."
        : "since/until: the window may be at most 7 days (366 days with exactly one register_id).",
    );
  }
}
