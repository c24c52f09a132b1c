/**
 * `fieldhub mirror`: a client of any server speaking the Gateway Data API that
 * copies the history of every gateway its key sees into a file. Per gateway it
 * follows docs/api.md section 4.6, rule 3: `order=asc` from the
 * last stored time, `next_cursor` until `has_more` is false, in windows of at most
 * 7 days (rule 1). It honours `X-RateLimit-*` and `Retry-After` (docs/api.md section 8),
 * and resumes from its own output (history-io/mirror-file.ts).
 */

import { historyEncoder, type RowEncoder, type ServedUnits } from "../history-io/encode.ts";
import { openMirrorFile, rowKey } from "../history-io/mirror-file.ts";
import { createProgress } from "../history-io/progress.ts";
import type { ReadingAggregate } from "../lib/reading-aggregate.ts";
import { CommandError, parseCommandArgs, requireOption } from "./args.ts";
import type { CommandHelp } from "./help.ts";
import { parseFormat, parseTimeOption } from "./history-options.ts";

export const mirrorHelp: readonly CommandHelp[] = [
  {
    command: "mirror",
    arguments: "--url BASE --key KEY --out FILE [--format ndjson|csv|line-protocol] [--since T] [--quiet]",
    summary:
      "Copy the reading history of every gateway a key sees on any server of this API into a file; run again to continue where it stopped.",
    options: [
      { flag: "--url BASE", text: "the API's base URL, e.g. http://10.0.0.2:8080/v1" },
      { flag: "--key KEY", text: "an API key with devices:read and registers:read" },
      {
        flag: "--out FILE",
        text: "output file; an existing one is continued after its last row (a torn last line is cut off)",
      },
      { flag: "--format F", text: "ndjson (default), csv or line-protocol (docs/history-io.md)" },
      { flag: "--since T", text: "start here (RFC 3339) when the file is new (default: 366 days back)" },
      { flag: "--quiet", text: "no progress on stderr" },
    ],
  },
];

const day = 86_400_000;
/** docs/api.md section 4.6, rule 1: a window over all registers is at most 7 days. */
const windowMs = 7 * day;
/** Without --since or earlier output: history retention's default (docs/api.md section 8, 12 months). */
const defaultLookbackMs = 366 * day;
const pageLimit = 1000;
const transientRetries = 6;

interface ApiGateway {
  id: string;
  serial: string;
}
interface ApiReading {
  register_id: string;
  modbus_device_id: string | null;
  name: string | null;
  unit: string | null;
  value: number | null;
  raw_value: number | null;
  /** Added fields (docs/api.md sections 2.8, 4.6); absent from a server of an earlier version. */
  min?: number | null;
  max?: number | null;
  mean?: number | null;
  raw_min?: number | null;
  raw_max?: number | null;
  raw_mean?: number | null;
  samples?: number | null;
  ts: string;
}
interface ApiRegister {
  id: string;
  scale_factor: number | null;
}

/** GET with the key; waits out rate limits and retries what a server may fail transiently. */
function apiClient(base: string, key: string) {
  const sleep = (ms: number) => Bun.sleep(ms);
  return async function get<T>(path: string): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
      } catch (error) {
        if (attempt >= transientRetries) throw new CommandError(`GET ${base}${path}: ${String(error)}`);
        await sleep(Math.min(30_000, 500 * 2 ** attempt));
        continue;
      }
      const text = await response.text();
      if (response.status === 429) {
        // docs/api.md section 8: Retry-After on 429 says how long to wait.
        const retryAfter = Number(response.headers.get("retry-after") ?? "1");
        await sleep(Math.max(0.1, Number.isFinite(retryAfter) ? retryAfter : 1) * 1000);
        attempt = 0;
        continue;
      }
      if (response.status >= 500 && attempt < transientRetries) {
        await sleep(Math.min(30_000, 500 * 2 ** attempt));
        continue;
      }
      if (response.status !== 200) {
        let detail = text.slice(0, 300);
        try {
          const problem = JSON.parse(text) as { code?: string; detail?: string; title?: string };
          detail = `${problem.code ?? ""} ${problem.detail ?? problem.title ?? ""}`.trim();
        } catch {}
        throw new CommandError(`GET ${base}${path}: ${response.status} ${detail}`);
      }
      // docs/api.md section 8: when the minute's requests are used up, wait for the window to reset.
      if (response.headers.get("x-ratelimit-remaining") === "0") {
        const reset = Number(response.headers.get("x-ratelimit-reset") ?? "1");
        await sleep(Math.max(0.1, Number.isFinite(reset) ? reset : 1) * 1000);
      }
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new CommandError(`GET ${base}${path}: not JSON`);
      }
    }
  };
}

export async function mirrorCommand(argv: string[]): Promise<void> {
  const { values } = parseCommandArgs(argv, {
    url: { type: "string" },
    key: { type: "string" },
    out: { type: "string" },
    format: { type: "string" },
    since: { type: "string" },
    quiet: { type: "boolean" },
  });
  const base = requireOption(values.url, "--url").replace(/\/+$/, "");
  const key = requireOption(values.key, "--key");
  const outPath = requireOption(values.out, "--out");
  const format = parseFormat(values.format, "ndjson");
  const runUntil = Date.now();
  const since = parseTimeOption(values.since, "--since") ?? runUntil - defaultLookbackMs;
  const get = apiClient(base, key);

  const gateways: ApiGateway[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await get<{ data: ApiGateway[]; meta: { total: number } }>(`/devices?limit=100&offset=${offset}`);
    gateways.push(...page.data);
    if (page.data.length === 0 || gateways.length >= page.meta.total) break;
  }
  // A stable order, so a resumed run walks the gateways as the first did.
  gateways.sort((a, b) => (a.serial < b.serial ? -1 : a.serial > b.serial ? 1 : 0));

  const file = await openMirrorFile(outPath, format);
  const encoder = historyEncoder(format);
  if (file.empty && encoder.header !== "") file.append(encoder.header);
  const progress = createProgress({ label: "rows mirrored", quiet: values.quiet === true });
  let written = 0;
  let omitted = 0;
  try {
    for (const [index, gateway] of gateways.entries()) {
      const gatewayPath = `/devices/${encodeURIComponent(gateway.id)}`;
      const detail = await get<{ data: { modbus_devices: { id: string; name: string | null }[] } }>(gatewayPath);
      const deviceNames = new Map(detail.data.modbus_devices.map((device) => [device.id, device.name]));
      const registers = await get<{ data: ApiRegister[] }>(`${gatewayPath}/registers`);
      const scaleFactors = new Map(registers.data.map((register) => [register.id, register.scale_factor]));
      const encoders = new Map<string, RowEncoder>();
      const mark = file.marks.get(gateway.serial) ?? { ts: Number.NEGATIVE_INFINITY, written: new Set<string>() };
      const start = Number.isFinite(mark.ts) ? mark.ts : since;

      for (let windowStart = start; windowStart < runUntil; windowStart += windowMs) {
        const windowEnd = Math.min(windowStart + windowMs, runUntil);
        const query = `order=asc&limit=${pageLimit}&since=${new Date(windowStart).toISOString()}&until=${new Date(windowEnd).toISOString()}`;
        type ReadingsPage = { data: ApiReading[]; meta: { has_more: boolean; next_cursor: string | null } };
        const pagePath = (cursor: string | null) =>
          `${gatewayPath}/readings?${query}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
        let next: Promise<ReadingsPage> | null = get<ReadingsPage>(pagePath(null));
        while (next !== null) {
          const page: ReadingsPage = await next;
          // The next page is on its way while this one is written.
          next =
            page.meta.has_more && page.meta.next_cursor !== null
              ? get<ReadingsPage>(pagePath(page.meta.next_cursor))
              : null;
          let text = "";
          for (const reading of page.data) {
            const ts = Date.parse(reading.ts);
            const device =
              reading.modbus_device_id === null ? null : (deviceNames.get(reading.modbus_device_id) ?? null);
            const name = reading.name ?? reading.register_id;
            const rowId = rowKey(device, name);
            // Rows at or before the mark were written by an earlier run (or page).
            if (ts < mark.ts || (ts === mark.ts && mark.written.has(rowId))) continue;
            if (ts > mark.ts) {
              mark.ts = ts;
              mark.written = new Set();
            }
            mark.written.add(rowId);
            let encode = encoders.get(reading.register_id);
            if (encode === undefined) {
              encode = encoder.forRegister({
                uuid: reading.register_id,
                gatewaySerial: gateway.serial,
                deviceName: device,
                name,
                unit: reading.unit,
                scaleFactor: scaleFactors.get(reading.register_id) ?? null,
              });
              encoders.set(reading.register_id, encode);
            }
            // Registers the server still lists: value, min, max and mean from their scale
            // factor, as an export computes them; retired ones: as sent.
            const line = encode(
              ts,
              reading.raw_value,
              aggregateOf(reading),
              scaleFactors.has(reading.register_id) ? undefined : servedUnitsOf(reading),
            );
            if (line === null) omitted++;
            else {
              text += line;
              written++;
            }
          }
          if (text !== "") file.append(text);
          const share = Math.min(1, Math.max(0, (mark.ts - start) / Math.max(1, runUntil - start)));
          progress.update(written, (index + (Number.isFinite(share) ? share : 0)) / gateways.length);
        }
        file.sync();
      }
    }
  } finally {
    file.close();
  }
  const note = omitted > 0 ? `; ${omitted} without a value left out (line protocol has no null)` : "";
  progress.done(`mirrored ${written} new readings of ${gateways.length} gateways into ${outPath}${note}`);
}

/** A served reading's engineering units: a register the server no longer lists has no scale factor to compute them from. */
function servedUnitsOf(reading: ApiReading): ServedUnits {
  return { value: reading.value, min: reading.min ?? null, max: reading.max ?? null, mean: reading.mean ?? null };
}

/** A served reading's aggregate, raw as stored (null when it has none, or the server gives none). */
function aggregateOf(reading: ApiReading): ReadingAggregate | null {
  const { raw_min: rawMin, raw_max: rawMax, raw_mean: rawMean, samples } = reading;
  if (samples === undefined || samples === null) return null;
  return { rawMin: rawMin ?? Number.NaN, rawMax: rawMax ?? Number.NaN, rawMean: rawMean ?? Number.NaN, samples };
}
