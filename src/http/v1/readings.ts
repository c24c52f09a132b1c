import { Elysia, t } from "elysia";
import { isoFromMs } from "../../lib/clock.ts";
import { CodedError } from "../../lib/errors.ts";
import { uuidPattern } from "../../lib/ids.ts";
import { aggregateScaler, type ReadingAggregate } from "../../lib/reading-aggregate.ts";
import { scalerFor } from "../../lib/register-scaling.ts";
import { parseRfc3339 } from "../../lib/timestamps.ts";
import type { HistoryRegister } from "../../store/contract/registers.ts";
import { gatewayIdParams, lookupErrors } from "./common.ts";
import { guardRoute, principalOf, type V1Deps } from "./deps.ts";
import { CursorMeta, Reading } from "./models.ts";
import { optionalEnum, queryObject } from "./query.ts";
import { decodeCursor, encodeCursor, parameterFingerprint } from "./readings-cursor.ts";

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;
/** docs/api.md section 4.6, rule 1 and section 8. */
const defaultWindowMs = 24 * hourMs;
const maxWindowMs = 7 * dayMs;
const maxSingleRegisterWindowMs = 366 * dayMs;

const ListReadingsQuery = queryObject({
  register_id: t.Optional(
    t.String({
      title: "register_id",
      description: "one register id, or several separated by commas; default all registers",
    }),
  ),
  since: t.Optional(
    t.String({ title: "since", format: "date-time", description: "start of window, inclusive; default until - 24 h" }),
  ),
  until: t.Optional(
    t.String({ title: "until", format: "date-time", description: "end of window, exclusive; default now" }),
  ),
  order: optionalEnum("order", ["desc", "asc"], "default desc"),
  limit: t.Optional(t.Integer({ title: "limit", minimum: 1, maximum: 1000, default: 100, description: "1 to 1000" })),
  cursor: t.Optional(
    t.String({
      title: "cursor",
      maxLength: 256,
      description: "meta.next_cursor of the previous page; the other parameters must be the same as on that request",
    }),
  ),
});

/** GET /devices/{id}/readings (scope registers:read): history in a window, paged by cursor. */
export function readingRoutes(deps: V1Deps) {
  // Retired registers are included: their history is still the gateway's history.
  const { registers: registerStore } = deps;
  return new Elysia().get(
    "/v1/devices/:id/readings",
    async ({ request, params, query }) => {
      const key = principalOf(deps, request);
      const gatewayId = await deps.gateways.locate(key.orgId, params.id);
      if (gatewayId === null) throw new CodedError("not_found", `No gateway ${params.id}.`);

      let registers: HistoryRegister[];
      if (query.register_id === undefined) registers = await registerStore.historyRegisters(gatewayId);
      else {
        registers = [];
        for (const uuid of parseRegisterIds(query.register_id)) {
          const register = await registerStore.historyRegister(gatewayId, uuid);
          if (register === null) throw new CodedError("not_found", `Gateway ${params.id} has no register ${uuid}.`);
          registers.push(register);
        }
      }
      const byId = new Map(registers.map((register) => [register.id, readingEncoder(register)]));
      const registerIds = [...byId.keys()];
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

      const page = await deps.readings.page({ registerIds, since, until, order, limit, after });
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
      // One join, not a chain of `+=`: a flat string is what Response encodes fastest.
      const data: string[] = [];
      for (const row of page.rows) {
        const encode = byId.get(row.registerId);
        if (encode !== undefined) data.push(encode(row.rawValue, row.ts, row.aggregate ?? null));
      }
      const meta = JSON.stringify({
        since: isoFromMs(since),
        until: isoFromMs(until),
        order,
        limit,
        has_more: page.hasMore,
        next_cursor: nextCursor,
      });
      return deps.jsonText(request, `{"data":[${data.join(",")}],"meta":${meta}}`);
    },
    {
      params: gatewayIdParams,
      query: ListReadingsQuery,
      transform: guardRoute(deps, "listReadings", ListReadingsQuery),
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

/**
 * A register's Reading objects as JSON text (models.ts `Reading`, the fields in
 * the order JSON.stringify would give): the register's own fields are encoded once
 * per request, so a row costs its value, raw value and time. A 1000-row page is
 * most of what this endpoint does (docs/benchmarks.md).
 */
function readingEncoder(
  register: HistoryRegister,
): (rawValue: number | null, ts: number, aggregate: ReadingAggregate | null) => string {
  const scale = scalerFor(register.scaleFactor);
  const head = `{"register_id":${JSON.stringify(register.uuid)},"modbus_device_id":${JSON.stringify(register.modbusDeviceUuid)},"name":${JSON.stringify(register.name)},"unit":${JSON.stringify(register.unit)},"value":`;
  const noAggregate = `,"min":null,"max":null,"mean":null,"samples":null,"raw_min":null,"raw_max":null,"raw_mean":null}`;
  const scaleAggregate = aggregateScaler(register.scaleFactor);
  const aggregateText = (aggregate: ReadingAggregate | null): string => {
    if (aggregate === null) return noAggregate;
    const { min, max, mean } = scaleAggregate(aggregate);
    return `,"min":${jsonNumber(min)},"max":${jsonNumber(max)},"mean":${jsonNumber(mean)},"samples":${aggregate.samples},"raw_min":${jsonNumber(aggregate.rawMin)},"raw_max":${jsonNumber(aggregate.rawMax)},"raw_mean":${jsonNumber(aggregate.rawMean)}}`;
  };
  return (rawValue, ts, aggregate) =>
    rawValue === null
      ? `${head}null,"raw_value":null,"ts":"${isoFromMs(ts)}"${aggregateText(aggregate)}`
      : `${head}${jsonNumber(scale(rawValue))},"raw_value":${jsonNumber(rawValue)},"ts":"${isoFromMs(ts)}"${aggregateText(aggregate)}`;
}

/** A number as JSON.stringify writes it (a non-finite one as null). */
function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : "null";
}

/** The comma-separated ids of `register_id`, checked and without repeats. */
function parseRegisterIds(list: string): string[] {
  const uuids = new Set<string>();
  for (const part of list.split(",")) {
    const uuid = part.trim().toLowerCase();
    if (!uuidPattern.test(uuid)) {
      throw new CodedError("invalid_parameter", `register_id: "${part.slice(0, 64)}" is not a UUID.`);
    }
    uuids.add(uuid);
  }
  return [...uuids];
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
