/**
 * Reading history rows from the three exchange formats (docs/history-io.md). A
 * decoder takes one record at a time (a line; a csv record may span lines inside
 * quotes) and gives a row, nothing for a record that holds none (blank line,
 * comment, csv header), or throws RowError with what is wrong, which the importer
 * prefixes with the line number.
 */
import type { ReadingAggregate } from "../lib/reading-aggregate.ts";
import { parseRfc3339 } from "../lib/timestamps.ts";
import type { HistoryFormat } from "./encode.ts";

/** A row to import: its register by id, or by gateway serial + device name + register name. */
export interface ImportRow {
  registerId: string | null;
  gateway: string | null;
  device: string | null;
  register: string | null;
  /** Unix ms. */
  ts: number;
  rawValue: number | null;
  /** The reading's per-period aggregate (raw_min, raw_max, raw_mean, samples), when the row has one. */
  aggregate: ReadingAggregate | null;
}

/**
 * An aggregate from its raw columns: none without `samples`; a part given as null
 * (a NaN on export) reads NaN. `text` columns (csv, line protocol) are parsed first.
 */
function aggregateFrom(parts: {
  min: unknown;
  max: unknown;
  mean: unknown;
  samples: unknown;
}): ReadingAggregate | null {
  if (parts.samples === null || parts.samples === undefined) return null;
  const samples = Number(parts.samples);
  if (!Number.isSafeInteger(samples) || samples < 1) {
    throw new RowError(`samples is not a whole number of at least 1: ${show(parts.samples)}`);
  }
  const part = (value: unknown) => (value === null || value === undefined ? Number.NaN : (parseValue(value) as number));
  return { rawMin: part(parts.min), rawMax: part(parts.max), rawMean: part(parts.mean), samples };
}

/** What a numeric timestamp counts (line protocol, and numeric times in csv/ndjson). */
export const timePrecisions = ["s", "ms", "ns"] as const;
export type TimePrecision = (typeof timePrecisions)[number];

export class RowError extends Error {}

export type RecordDecoder = (text: string) => ImportRow | null;

export function historyDecoder(format: HistoryFormat, precision: TimePrecision): RecordDecoder {
  switch (format) {
    case "ndjson":
      return (text) => decodeNdjson(text, precision);
    case "csv":
      return csvDecoder(precision);
    case "line-protocol":
      return lineProtocolDecoder(precision);
  }
}

/** A csv record continues on the next line while a quoted field is open (RFC 4180). */
export function csvRecordIsOpen(text: string): boolean {
  let quotes = 0;
  for (let i = text.indexOf('"'); i !== -1; i = text.indexOf('"', i + 1)) quotes++;
  return quotes % 2 === 1;
}

const integerText = /^-?\d+$/;
// Years 1970 to 9999: what ISO 8601 text and the stores' time types can both hold.
const latestMs = 253_402_300_799_999;

export function parseTime(value: unknown, precision: TimePrecision): number {
  let ms: number | null = null;
  if (typeof value === "number" && Number.isInteger(value)) ms = fromPrecision(String(value), precision);
  else if (typeof value === "string" && integerText.test(value)) ms = fromPrecision(value, precision);
  else if (typeof value === "string") ms = parseRfc3339(value);
  if (ms === null || !Number.isFinite(ms)) {
    throw new RowError(`time is not an ISO 8601 date-time or a whole number of ${precision}: ${show(value)}`);
  }
  if (ms < 0 || ms > latestMs) throw new RowError(`time is outside 1970 to 9999: ${show(value)}`);
  return ms;
}

function fromPrecision(digits: string, precision: TimePrecision): number {
  if (precision === "s") return Number(digits) * 1000;
  if (precision === "ms") return Number(digits);
  // Nanoseconds pass 2^53: cut to milliseconds on the text, rounding down.
  const negative = digits.startsWith("-");
  const magnitude = negative ? digits.slice(1) : digits;
  const whole = magnitude.length > 6 ? Number(magnitude.slice(0, -6)) : 0;
  const rest = magnitude.length > 6 ? magnitude.slice(-6) : magnitude;
  return negative ? -(whole + (Number(rest) > 0 ? 1 : 0)) : whole;
}

const decimalText = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** A raw value: a finite number, or null; anything else "does not fit". */
function parseValue(value: unknown): number | null {
  if (value === null) return null;
  let number = Number.NaN;
  if (typeof value === "number") number = value;
  else if (typeof value === "string" && decimalText.test(value)) number = Number(value);
  if (!Number.isFinite(number)) throw new RowError(`raw_value is not a finite number or null: ${show(value)}`);
  return number;
}

function show(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text === undefined ? "nothing" : text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

function optionalName(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") throw new RowError(`${field} is not a string: ${show(value)}`);
  return value;
}

function decodeNdjson(text: string, precision: TimePrecision): ImportRow | null {
  if (text.trim() === "") return null;
  let object: unknown;
  try {
    object = JSON.parse(text);
  } catch {
    throw new RowError("not a JSON object");
  }
  if (typeof object !== "object" || object === null || Array.isArray(object)) throw new RowError("not a JSON object");
  const row = object as Record<string, unknown>;
  if (!("raw_value" in row)) throw new RowError("no raw_value");
  return {
    registerId: optionalName(row.register_id, "register_id"),
    gateway: optionalName(row.gateway, "gateway"),
    device: optionalName(row.device, "device"),
    register: optionalName(row.register, "register"),
    ts: parseTime(row.ts, precision),
    rawValue: parseValue(row.raw_value),
    aggregate: aggregateFrom({ min: row.raw_min, max: row.raw_max, mean: row.raw_mean, samples: row.samples }),
  };
}

/** Splits one csv record into fields (RFC 4180: quoted fields, doubled quotes). */
export function csvFields(text: string): string[] {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    if (text[i] === '"') {
      let value = "";
      i++;
      for (;;) {
        const quote = text.indexOf('"', i);
        if (quote === -1) throw new RowError("unterminated quoted field");
        value += text.slice(i, quote);
        if (text[quote + 1] === '"') {
          value += '"';
          i = quote + 2;
        } else {
          i = quote + 1;
          break;
        }
      }
      fields.push(value);
      if (i >= text.length) return fields;
      if (text[i] !== ",") throw new RowError("text after a quoted field");
      i++;
    } else {
      const comma = text.indexOf(",", i);
      if (comma === -1) {
        fields.push(text.slice(i));
        return fields;
      }
      fields.push(text.slice(i, comma));
      i = comma + 1;
    }
  }
}

/**
 * The header names the columns, in any order. InfluxDB's `influx -format csv`
 * names them `time` and `raw`, so those are read as `ts` and `raw_value`; other
 * columns (`name`, `unit`, `value`, ...) are ignored.
 */
function csvDecoder(precision: TimePrecision): RecordDecoder {
  let columns: Map<string, number> | null = null;
  return (record) => {
    const text = record.endsWith("\r") ? record.slice(0, -1) : record;
    if (text === "") return null;
    const fields = csvFields(text);
    if (columns === null) {
      columns = new Map(fields.map((name, index) => [aliases[name] ?? name, index]));
      if (!columns.has("ts") || !columns.has("raw_value")) {
        throw new RowError(`the header needs ts (or time) and raw_value (or raw) columns: ${show(text)}`);
      }
      if (!columns.has("register_id") && !(columns.has("gateway") && columns.has("register"))) {
        throw new RowError("the header needs register_id, or gateway, device and register columns");
      }
      return null;
    }
    const known = columns;
    const field = (name: string) => {
      const index = known.get(name);
      const value = index === undefined ? undefined : fields[index];
      return value === undefined || value === "" ? null : value;
    };
    const raw = field("raw_value");
    return {
      registerId: field("register_id"),
      gateway: field("gateway"),
      device: field("device"),
      register: field("register"),
      ts: parseTime(field("ts") ?? "", precision),
      rawValue: raw === null ? null : parseValue(raw),
      aggregate: aggregateFrom({
        min: field("raw_min"),
        max: field("raw_max"),
        mean: field("raw_mean"),
        samples: field("samples"),
      }),
    };
  };
}

const aliases: Record<string, string> = { time: "ts", raw: "raw_value" };

const backslash = 92;
const comma = 44;
const equals = 61;
const space = 32;
const quote = 34;

/** The end of a token: the first unescaped character among `stops` (char codes), from `from`. */
function tokenEnd(text: string, from: number, stopA: number, stopB: number): number {
  let i = from;
  while (i < text.length) {
    const char = text.charCodeAt(i);
    if (char === backslash) i += 2;
    else if (char === stopA || char === stopB) return i;
    else i++;
  }
  return text.length;
}

const integerField = /^[-+]?\d+[iu]$/;

/** A tag key or value without its escapes (comma, equals sign, space, backslash). */
function unescapeTag(text: string): string {
  return text.includes("\\") ? text.replace(/\\([,= \\])/g, "$1") : text;
}

type SeriesTags = Pick<ImportRow, "registerId" | "gateway" | "device" | "register">;
/** Distinct series remembered at most; a file has one per register, so this is plenty. */
const seriesCacheSize = 100_000;

/**
 * `measurement,tag=value,... field=value,... timestamp` (InfluxDB line protocol).
 * The row's register comes from the `register_id` tag or the `gateway`, `device`
 * and `register` tags; its value from the `raw` field (integer or float). Comment
 * lines and the `CREATE DATABASE` line `influx_inspect export` writes hold no row.
 */
function lineProtocolDecoder(precision: TimePrecision): RecordDecoder {
  // A file repeats the same few series (measurement and tags) on every line: each
  // is parsed once and its tags remembered by its text.
  const series = new Map<string, SeriesTags>();
  return (text) => {
    const line = text.trim();
    if (line === "" || line.startsWith("#") || line.startsWith("CREATE DATABASE ")) return null;
    const seriesEnd = tokenEnd(line, 0, space, space);
    const seriesText = line.slice(0, seriesEnd);
    let tags = series.get(seriesText);
    if (tags === undefined) {
      tags = parseSeries(seriesText);
      if (series.size >= seriesCacheSize) series.clear();
      series.set(seriesText, tags);
    }
    if (seriesEnd >= line.length) throw new RowError("no field set");
    const { fields, end } = fieldSet(line, seriesEnd + 1);
    const raw = fields.get("raw");
    if (raw === undefined) throw new RowError("no raw field");
    const timestamp = line.slice(end).trim();
    if (timestamp === "") throw new RowError("no timestamp");
    const number = (name: string) => {
      const text = fields.get(name);
      return text === undefined ? undefined : numberField(name, text);
    };
    const aggregate = aggregateFrom({
      min: number("raw_min"),
      max: number("raw_max"),
      mean: number("raw_mean"),
      samples: number("samples"),
    });
    return { ...tags, ts: parseTime(timestamp, precision), rawValue: numberField("raw", raw), aggregate };
  };
}

/** `measurement,tag=value,...`: the register's naming tags. */
function parseSeries(text: string): SeriesTags {
  const tags = new Map<string, string>();
  let i = tokenEnd(text, 0, comma, comma);
  while (i < text.length) {
    const keyEnd = tokenEnd(text, i + 1, equals, comma);
    if (text.charCodeAt(keyEnd) !== equals)
      throw new RowError(`tag without a value: ${show(text.slice(i + 1, keyEnd))}`);
    const valueEnd = tokenEnd(text, keyEnd + 1, comma, comma);
    tags.set(unescapeTag(text.slice(i + 1, keyEnd)), unescapeTag(text.slice(keyEnd + 1, valueEnd)));
    i = valueEnd;
  }
  return {
    registerId: tags.get("register_id") ?? null,
    gateway: tags.get("gateway") ?? null,
    device: tags.get("device") ?? null,
    register: tags.get("register") ?? null,
  };
}

/** A numeric field's value: integer (`i`, `u`) or float. */
function numberField(name: string, text: string): number {
  let value: number;
  if (integerField.test(text)) value = Number(text.slice(0, -1));
  else if (decimalText.test(text)) value = Number(text);
  else throw new RowError(`${name} is not an integer or float field: ${show(text)}`);
  if (!Number.isFinite(value)) throw new RowError(`${name} does not fit a number: ${show(text)}`);
  return value;
}

const wantedFields = new Set(["raw", "raw_min", "raw_max", "raw_mean", "samples"]);

/** The fields fieldhub reads among `field=value,...` from `from` (their text, the first of each), and where the field set ends. */
function fieldSet(line: string, from: number): { fields: Map<string, string>; end: number } {
  const fields = new Map<string, string>();
  let i = from;
  for (;;) {
    const keyEnd = tokenEnd(line, i, equals, space);
    if (line.charCodeAt(keyEnd) !== equals) throw new RowError(`field without a value: ${show(line.slice(i, keyEnd))}`);
    let valueEnd = keyEnd + 1;
    if (line.charCodeAt(valueEnd) === quote) {
      valueEnd++;
      while (valueEnd < line.length && line.charCodeAt(valueEnd) !== quote) {
        valueEnd += line.charCodeAt(valueEnd) === backslash ? 2 : 1;
      }
      valueEnd++;
    } else valueEnd = tokenEnd(line, valueEnd, comma, space);
    const name = unescapeTag(line.slice(i, keyEnd));
    if (wantedFields.has(name) && !fields.has(name)) fields.set(name, line.slice(keyEnd + 1, valueEnd));
    i = valueEnd;
    if (line.charCodeAt(i) !== comma) break;
    i++;
  }
  return { fields, end: i };
}
