/**
 * The readings a site forwards (docs/fleet.md, "Forwarding"):
 * - `GET /edge/v1/positions`: the newest stored reading time of each of the site's
 *   registers, where the site resumes (the last position the central acknowledged);
 * - `POST /edge/v1/readings`: a batch `[register id, ts ms, raw value]` (with the
 *   reading's aggregate when known), stored with the history import's rule (a
 *   register's storage period holds one reading), so a resent batch stores nothing
 *   twice; a resent reading's aggregate attaches to the reading stored. A register that is not one of the site's
 *   refuses the whole batch (a site writes into no other organisation or site).
 */
import { Elysia } from "elysia";
import { edgeMessages } from "../../lib/edge-protocol/messages.ts";
import { CodedError } from "../../lib/errors.ts";
import { effectiveStorageInterval } from "../../lib/storage-period.ts";
import type { ReadingTuple } from "../../store/contract/readings.ts";
import type { Store } from "../../store/index.ts";
import { authenticateSite } from "./auth.ts";
import { edgeReply } from "./reply.ts";

export function edgeReadingRoutes(store: Store) {
  const { positions: positionsMessage, readings: readingsMessage } = edgeMessages;
  return new Elysia()
    .get(positionsMessage.path, async ({ request }) => {
      const site = await authenticateSite(store, request);
      const registers = await store.registers.ofSite(site.orgId, site.name);
      const newest = await store.readings.newestTimes();
      const positions: Record<string, number> = {};
      for (const register of registers) {
        const ts = newest.get(register.id);
        if (ts !== undefined) positions[register.uuid] = ts;
      }
      return edgeReply(positionsMessage, { positions });
    })
    .post(
      readingsMessage.path,
      async ({ request, body }) => {
        const site = await authenticateSite(store, request);
        const registers = new Map(
          (await store.registers.ofSite(site.orgId, site.name)).map((register) => [register.uuid, register]),
        );
        const batch: ReadingTuple[] = [];
        const unknown = new Set<string>();
        for (const row of body.readings) {
          const [uuid, ts, rawValue] = row;
          const register = registers.get(uuid.toLowerCase());
          if (register === undefined) unknown.add(uuid);
          else if (row.length === 3) batch.push([register.id, ts, rawValue]);
          else {
            const [, , , rawMin, rawMax, rawMean, samples] = row;
            const aggregate = {
              rawMin: rawMin ?? Number.NaN,
              rawMax: rawMax ?? Number.NaN,
              rawMean: rawMean ?? Number.NaN,
              samples,
            };
            batch.push([register.id, ts, rawValue, aggregate]);
          }
        }
        if (unknown.size > 0) {
          throw new CodedError(
            "invalid_parameter",
            `Not registers of site "${site.name}" (send its inventory first): ${[...unknown].slice(0, 5).join(", ")}${unknown.size > 5 ? ` and ${unknown.size - 5} more` : ""}. Nothing was stored.`,
          );
        }
        const periods = new Map<number, number>();
        for (const register of registers.values()) {
          periods.set(register.id, effectiveStorageInterval(register.storageIntervalMs));
        }
        const { stored, skipped } = await store.readings.importReadings(batch, periods);
        return edgeReply(readingsMessage, { stored, skipped });
      },
      { body: readingsMessage.request },
    );
}
