/**
 * Sparkplug B payloads (docs/mqtt.md, "Sparkplug B"), encoded with protobufjs from
 * fieldhub's copy of the published schema (sparkplug_b.proto, Sparkplug 3.0). The
 * schema's text is imported as a string, so `bun build --compile` embeds it and the
 * executable parses it once at start: nothing is read from disk at run time.
 */
import protobuf from "protobufjs";
import schemaText from "./sparkplug_b.proto" with { type: "text" };

const root = protobuf.parse(schemaText, { keepCase: true }).root;
const payloadType = root.lookupType("org.eclipse.tahu.protobuf.Payload");
const dataTypeValues = root.lookupEnum("org.eclipse.tahu.protobuf.DataType").values;

/** The schema's DataType names fieldhub uses, with their numbers read from the schema. */
export type DataTypeName =
  | "Int16"
  | "Int32"
  | "Int64"
  | "UInt16"
  | "UInt32"
  | "UInt64"
  | "Float"
  | "Double"
  | "Boolean"
  | "String";

export function dataTypeNumber(name: DataTypeName): number {
  const value = dataTypeValues[name];
  if (value === undefined) throw new Error(`sparkplug_b.proto has no DataType ${name}`);
  return value;
}

/** A metric's value in the field its datatype uses (Sparkplug 3.0, section 6.4.16). */
export type MetricValue =
  | { int_value: number }
  | { long_value: number }
  | { float_value: number }
  | { double_value: number }
  | { boolean_value: boolean }
  | { string_value: string }
  | { is_null: true };

export interface Metric {
  name?: string;
  alias?: number;
  timestamp?: number;
  datatype?: number;
  is_historical?: boolean;
  properties?: { keys: string[]; values: { type: number; string_value: string }[] };
  value: MetricValue;
}

export interface Payload {
  timestamp: number;
  /** Absent only on NDEATH (Sparkplug 3.0: an NDEATH carries no seq). */
  seq?: number;
  metrics: Metric[];
}

/** One payload as protobuf bytes. */
export function encodePayload(payload: Payload): Uint8Array {
  const metrics = payload.metrics.map(({ value, ...metric }) => ({ ...metric, ...value }));
  return payloadType.encode({ ...payload, metrics }).finish();
}

/** A received payload (an NCMD): its metrics' names and values as plain data. */
export function decodePayload(bytes: Uint8Array): {
  metrics: { name?: string; alias?: number; boolean_value?: boolean }[];
} {
  const message = payloadType.decode(bytes);
  return payloadType.toObject(message, { longs: Number, defaults: false }) as {
    metrics: { name?: string; alias?: number; boolean_value?: boolean }[];
  };
}
