/**
 * The edge node's Sparkplug devices and metrics (docs/mqtt.md, "Sparkplug B"): one
 * device per Modbus device, named `{gateway serial}:{device name}`, with one metric
 * per register: its name, an alias unique across the edge node (Sparkplug 3.0,
 * section 6.4.7), its datatype from the register's data type, and its value in the
 * field that datatype uses. A register with a scale factor other than 1 carries its
 * engineering value as a Double; the others their raw value in their own type
 * (signed integers as two's complement, as the schema's unsigned fields hold them).
 */
import { scalerFor } from "../../lib/register-scaling.ts";
import { type PublishedRegister, topicLevel } from "../topics.ts";
import { type DataTypeName, dataTypeNumber, type Metric, type MetricValue } from "./payload.ts";

export interface SparkplugMetric {
  register: PublishedRegister;
  alias: number;
  datatype: number;
  /** A read value (raw, or text for a string register) in the metric's value field; is_null when none. */
  valueOf(raw: number | null, text: string | undefined): MetricValue;
}

export interface SparkplugDevice {
  /** Public Modbus device id (UUID). */
  deviceId: string;
  gatewayId: string;
  /** The Sparkplug device id: one topic level. */
  name: string;
  metrics: SparkplugMetric[];
}

const integerTypes: Record<string, DataTypeName> = {
  int16: "Int16",
  uint16: "UInt16",
  int32: "Int32",
  uint32: "UInt32",
  int64: "Int64",
  uint64: "UInt64",
};

function metricOf(register: PublishedRegister, alias: number): SparkplugMetric {
  const scaled = register.scaleFactor !== null && register.scaleFactor !== 1;
  const scale = scalerFor(register.scaleFactor);
  const typed = (name: DataTypeName, value: (raw: number) => MetricValue): SparkplugMetric => ({
    register,
    alias,
    datatype: dataTypeNumber(name),
    valueOf: (raw) => (raw === null ? { is_null: true } : value(raw)),
  });
  if (register.dataType === "string")
    return {
      register,
      alias,
      datatype: dataTypeNumber("String"),
      valueOf: (_raw, text) => (text === undefined ? { is_null: true } : { string_value: text }),
    };
  if (register.dataType === "bool") return typed("Boolean", (raw) => ({ boolean_value: raw !== 0 }));
  if (scaled || register.dataType === "float64") return typed("Double", (raw) => ({ double_value: scale(raw) }));
  if (register.dataType === "float32") return typed("Float", (raw) => ({ float_value: raw }));
  const integer = integerTypes[register.dataType] ?? "Double";
  if (integer === "Int64" || integer === "UInt64") return typed(integer, (raw) => ({ long_value: raw }));
  return typed(integer, (raw) => ({ int_value: raw }));
}

/**
 * Every Modbus device with its metrics. Aliases are counted from 1 in the
 * inventory's order; given the aliases in use (a reload), a register keeps its
 * alias and a new one takes the next number never used on this edge node, so a
 * host's alias table stays right for every metric it already knows.
 */
export function sparkplugDevices(
  registers: ReadonlyMap<string, PublishedRegister>,
  inUse?: { aliases: ReadonlyMap<string, number>; highest: number },
): Map<string, SparkplugDevice> {
  const devices = new Map<string, SparkplugDevice>();
  let highest = inUse?.highest ?? 0;
  for (const register of registers.values()) {
    let device = devices.get(register.deviceId);
    if (device === undefined) {
      device = {
        deviceId: register.deviceId,
        gatewayId: register.gatewayId,
        name: topicLevel(`${register.gatewaySerial}:${register.deviceName}`),
        metrics: [],
      };
      devices.set(register.deviceId, device);
    }
    const kept = inUse?.aliases.get(register.registerId);
    if (kept === undefined) highest += 1;
    device.metrics.push(metricOf(register, kept ?? highest));
  }
  return devices;
}

/** A metric as a DBIRTH declares it: name, alias, datatype, unit (`engUnit`), and its value now. */
export function birthMetric(metric: SparkplugMetric, timestamp: number, value: MetricValue): Metric {
  const unit = metric.register.unit;
  return {
    name: metric.register.registerName,
    alias: metric.alias,
    timestamp,
    datatype: metric.datatype,
    ...(unit === null
      ? {}
      : { properties: { keys: ["engUnit"], values: [{ type: dataTypeNumber("String"), string_value: unit }] } }),
    value,
  };
}

/**
 * What a DBIRTH declares of a device: its name and each metric's name, alias,
 * datatype and unit. A reload that changes it is a new birth of the device.
 */
export function birthDeclaration(device: SparkplugDevice): string {
  return JSON.stringify([
    device.name,
    device.metrics.map((metric) => [metric.register.registerName, metric.alias, metric.datatype, metric.register.unit]),
  ]);
}
