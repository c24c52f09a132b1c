/**
 * Writing history rows in the three exchange formats (docs/history-io.md):
 * ndjson, csv (RFC 4180) and InfluxDB line protocol. Each register's constant part
 * of a line is built once, so a row costs a time, two numbers and a concatenation.
 */
import { isoFromMs } from "../lib/clock.ts";
import { aggregateScaler, type ReadingAggregate } from "../lib/reading-aggregate.ts";
import { scalerFor } from "../lib/register-scaling.ts";

export const historyFormats = ["ndjson", "csv", "line-protocol"] as const;
export type HistoryFormat = (typeof historyFormats)[number];

export function isHistoryFormat(text: string): text is HistoryFormat {
  return (historyFormats as readonly string[]).includes(text);
}

/** A register as an exported line names it. */
export interface ExportRegister {
  uuid: string;
  gatewaySerial: string;
  deviceName: string | null;
  name: string;
  unit: string | null;
  scaleFactor: number | null;
}

/**
 * Columns of ndjson objects and csv rows, in this order: the reading, then its
 * per-period aggregate (engineering units as the API gives them, then raw; empty
 * or null when the reading has none).
 */
export const exportColumns = [
  "register_id",
  "ts",
  "raw_value",
  "gateway",
  "device",
  "register",
  "unit",
  "value",
  "min",
  "max",
  "mean",
  "samples",
  "raw_min",
  "raw_max",
  "raw_mean",
];

/** A row's engineering units as its server sent them (a mirror's register the server no longer lists). */
export interface ServedUnits {
  value: number | null;
  min: number | null;
  max: number | null;
  mean: number | null;
}

/**
 * One register's line writer: `null` when the format cannot carry the row (a null
 * value in line protocol). `value`, `min`, `max` and `mean` are computed from the
 * scale factor unless `served` gives them (a mirror writes what its server sent).
 */
export type RowEncoder = (
  ts: number,
  rawValue: number | null,
  aggregate: ReadingAggregate | null,
  served?: ServedUnits,
) => string | null;

/** The aggregate columns' values, in exportColumns' order, or null without one. */
function aggregateColumns(
  scaleFactor: number | null,
): (aggregate: ReadingAggregate | null, served: ServedUnits | undefined) => (number | null)[] | null {
  const scale = aggregateScaler(scaleFactor);
  return (aggregate, served) => {
    if (aggregate === null) return null;
    const { min, max, mean } = served ?? scale(aggregate);
    return [min, max, mean, aggregate.samples, aggregate.rawMin, aggregate.rawMax, aggregate.rawMean];
  };
}
const aggregateNames = exportColumns.slice(8);

export interface HistoryEncoder {
  /** What goes before the first row (the csv header), or "". */
  header: string;
  forRegister(register: ExportRegister): RowEncoder;
}

export function historyEncoder(format: HistoryFormat): HistoryEncoder {
  switch (format) {
    case "ndjson":
      return { header: "", forRegister: ndjsonRow };
    case "csv":
      return { header: `${exportColumns.join(",")}\r\n`, forRegister: csvRow };
    case "line-protocol":
      return { header: "", forRegister: lineProtocolRow };
  }
}

function jsonNumber(value: number | null): string {
  return value === null || !Number.isFinite(value) ? "null" : String(value);
}

function ndjsonRow(register: ExportRegister): RowEncoder {
  const scale = scalerFor(register.scaleFactor);
  const head = `{"register_id":${JSON.stringify(register.uuid)},"ts":"`;
  const names = `,"gateway":${JSON.stringify(register.gatewaySerial)},"device":${JSON.stringify(register.deviceName)},"register":${JSON.stringify(register.name)},"unit":${JSON.stringify(register.unit)},"value":`;
  const columns = aggregateColumns(register.scaleFactor);
  const noAggregate = aggregateNames.map((name) => `,"${name}":null`).join("");
  const aggregateText = (aggregate: ReadingAggregate | null, served: ServedUnits | undefined) => {
    const values = columns(aggregate, served);
    return values === null
      ? noAggregate
      : values.map((value, index) => `,"${aggregateNames[index]}":${jsonNumber(value)}`).join("");
  };
  return (ts, raw, aggregate, served) =>
    `${head}${isoFromMs(ts)}","raw_value":${jsonNumber(raw)}${names}${jsonNumber(served !== undefined ? served.value : raw === null ? null : scale(raw))}${aggregateText(aggregate, served)}}\n`;
}

/** RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. */
export function csvField(text: string | null): string {
  if (text === null) return "";
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function csvNumber(value: number | null): string {
  return value === null || !Number.isFinite(value) ? "" : String(value);
}

function csvRow(register: ExportRegister): RowEncoder {
  const scale = scalerFor(register.scaleFactor);
  const id = csvField(register.uuid);
  const names = [register.gatewaySerial, register.deviceName, register.name, register.unit].map(csvField).join(",");
  const columns = aggregateColumns(register.scaleFactor);
  const noAggregate = ",".repeat(aggregateNames.length);
  const aggregateText = (aggregate: ReadingAggregate | null, served: ServedUnits | undefined) => {
    const values = columns(aggregate, served);
    return values === null ? noAggregate : `,${values.map(csvNumber).join(",")}`;
  };
  return (ts, raw, aggregate, served) =>
    `${id},${isoFromMs(ts)},${csvNumber(raw)},${names},${csvNumber(served !== undefined ? served.value : raw === null ? null : scale(raw))}${aggregateText(aggregate, served)}\r\n`;
}

/** InfluxDB's escaping of tag keys and values: comma, equals sign and space get a backslash. */
export function escapeTag(text: string): string {
  return text.replace(/[,= ]/g, "\\$&");
}

/**
 * `reading,gateway=..,device=..,register=.. raw=<v>[i] <unix seconds>`: whole
 * numbers as integer fields, others as floats; a reading with an aggregate adds
 * `raw_min`, `raw_max`, `raw_mean` and `samples` fields (a NaN part is left out:
 * line protocol has no NaN). An empty tag value is not allowed in line protocol,
 * so a device without a name has no device tag.
 */
function lineProtocolRow(register: ExportRegister): RowEncoder {
  const device =
    register.deviceName === null || register.deviceName === "" ? "" : `,device=${escapeTag(register.deviceName)}`;
  const series = `reading,gateway=${escapeTag(register.gatewaySerial)}${device},register=${escapeTag(register.name)} raw=`;
  const field = (value: number) => (Number.isSafeInteger(value) ? `${value}i` : String(value));
  const aggregateFields = (aggregate: ReadingAggregate | null) => {
    if (aggregate === null) return "";
    const parts: [string, number][] = [
      ["raw_min", aggregate.rawMin],
      ["raw_max", aggregate.rawMax],
      ["raw_mean", aggregate.rawMean],
    ];
    let text = "";
    for (const [name, value] of parts) if (Number.isFinite(value)) text += `,${name}=${field(value)}`;
    return `${text},samples=${aggregate.samples}i`;
  };
  return (ts, raw, aggregate) => {
    if (raw === null || !Number.isFinite(raw)) return null;
    return `${series}${field(raw)}${aggregateFields(aggregate)} ${Math.floor(ts / 1000)}\n`;
  };
}
