/**
 * Home Assistant MQTT discovery (docs/mqtt.md, "Home Assistant"): one retained
 * config per numeric register, `{discovery_prefix}/sensor/{node}/{register id}/config`
 * (`binary_sensor` for a bool), `node` being the client id, so this fieldhub's
 * configs are told from another's. Each reads the register's value topic, with its
 * unit and, where the unit says it, a device class and state class; it is
 * available while both its gateway and fieldhub are online. A config this fieldhub
 * left on the broker for a register it no longer has is cleared (an empty retained
 * message, which Home Assistant reads as removal).
 */
import type { MqttSettings } from "../lib/mqtt-settings.ts";
import { statusTopic } from "./connection.ts";
import type { PublishedGateway, PublishedRegister } from "./topics.ts";

/** Device class and state class by unit (Home Assistant's sensor device classes). */
const unitClasses: Record<string, { deviceClass: string; stateClass: string }> = {
  W: { deviceClass: "power", stateClass: "measurement" },
  kW: { deviceClass: "power", stateClass: "measurement" },
  MW: { deviceClass: "power", stateClass: "measurement" },
  Wh: { deviceClass: "energy", stateClass: "total_increasing" },
  kWh: { deviceClass: "energy", stateClass: "total_increasing" },
  MWh: { deviceClass: "energy", stateClass: "total_increasing" },
  "°C": { deviceClass: "temperature", stateClass: "measurement" },
  "°F": { deviceClass: "temperature", stateClass: "measurement" },
  K: { deviceClass: "temperature", stateClass: "measurement" },
  V: { deviceClass: "voltage", stateClass: "measurement" },
  mV: { deviceClass: "voltage", stateClass: "measurement" },
  A: { deviceClass: "current", stateClass: "measurement" },
  mA: { deviceClass: "current", stateClass: "measurement" },
  Hz: { deviceClass: "frequency", stateClass: "measurement" },
  VA: { deviceClass: "apparent_power", stateClass: "measurement" },
  kVA: { deviceClass: "apparent_power", stateClass: "measurement" },
  var: { deviceClass: "reactive_power", stateClass: "measurement" },
  kvar: { deviceClass: "reactive_power", stateClass: "measurement" },
  Pa: { deviceClass: "pressure", stateClass: "measurement" },
  kPa: { deviceClass: "pressure", stateClass: "measurement" },
  hPa: { deviceClass: "pressure", stateClass: "measurement" },
  bar: { deviceClass: "pressure", stateClass: "measurement" },
  mbar: { deviceClass: "pressure", stateClass: "measurement" },
  psi: { deviceClass: "pressure", stateClass: "measurement" },
  "m³": { deviceClass: "volume", stateClass: "total_increasing" },
  "m³/h": { deviceClass: "volume_flow_rate", stateClass: "measurement" },
  "L/min": { deviceClass: "volume_flow_rate", stateClass: "measurement" },
};

/** The client id as one discovery topic level (Home Assistant allows letters, digits, `_` and `-`). */
function nodeId(settings: MqttSettings): string {
  return settings.clientId.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** Where this fieldhub's discovery configs live: a subscription to each component's. */
export function discoveryFilters(settings: MqttSettings, discoveryPrefix: string): string[] {
  return ["sensor", "binary_sensor"].map((component) => `${discoveryPrefix}/${component}/${nodeId(settings)}/+/config`);
}

export function discoveryMessages(
  settings: MqttSettings,
  discoveryPrefix: string,
  catalogue: { registers: ReadonlyMap<string, PublishedRegister>; gateways: readonly PublishedGateway[] },
): { topic: string; payload: string }[] {
  const gatewayStatus = new Map(catalogue.gateways.map((gateway) => [gateway.gatewayId, gateway.statusTopic]));
  const messages: { topic: string; payload: string }[] = [];
  for (const register of catalogue.registers.values()) {
    // Text registers have no numeric state to discover.
    if (register.dataType === "string") continue;
    const bit = register.dataType === "bool";
    const classes = register.unit === null || bit ? undefined : unitClasses[register.unit];
    const config = {
      name: register.registerName,
      unique_id: `fieldhub_${register.registerId}`,
      state_topic: register.topic,
      value_template: bit ? "{{ 'ON' if value_json.value else 'OFF' }}" : "{{ value_json.value }}",
      ...(bit
        ? {}
        : { unit_of_measurement: register.unit ?? undefined, state_class: classes?.stateClass ?? "measurement" }),
      ...(classes === undefined ? {} : { device_class: classes.deviceClass }),
      availability: [
        { topic: gatewayStatus.get(register.gatewayId), payload_available: "online", payload_not_available: "offline" },
        { topic: statusTopic(settings), payload_available: "online", payload_not_available: "offline" },
      ],
      availability_mode: "all",
      device: {
        identifiers: [`fieldhub_${register.deviceId}`],
        name: `${register.gatewayName} ${register.deviceName}`,
        manufacturer: "fieldhub",
        model: `Modbus device on gateway ${register.gatewaySerial}`,
      },
      origin: { name: "fieldhub" },
    };
    messages.push({
      topic: `${discoveryPrefix}/${bit ? "binary_sensor" : "sensor"}/${nodeId(settings)}/${register.registerId}/config`,
      payload: JSON.stringify(config),
    });
  }
  return messages;
}
