/**
 * Where each register's value goes (docs/mqtt.md, "Topics"):
 * `{prefix}/{organization key}/{gateway serial}/{device name}/{register name}`, and
 * each gateway's status beside its devices. Names are the config's; a character MQTT
 * gives a meaning in a topic (`/`, `+`, `#`) is written `_`, so one name stays one level.
 */
import type { Inventory } from "../lib/inventory.ts";
import type { MqttSettings } from "../lib/mqtt-settings.ts";

/** One topic level from a name: `/`, `+`, `#` and control characters become `_`. */
export function topicLevel(name: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
  return name.replace(/[/+#\u0000-\u001f]/g, "_");
}

export interface PublishedRegister {
  registerId: string;
  gatewayId: string;
  orgKey: string;
  gatewaySerial: string;
  gatewayName: string;
  deviceId: string;
  /** The device's name, or its slave id for an unnamed one. */
  deviceName: string;
  registerName: string;
  unit: string | null;
  scaleFactor: number | null;
  dataType: string;
  deadband: number;
  topic: string;
}

export interface PublishedGateway {
  gatewayId: string;
  orgKey: string;
  serial: string;
  statusTopic: string;
}

/** Every register and gateway of the inventory with its topic. */
export function topicCatalogue(inventory: Inventory, settings: MqttSettings) {
  const registers = new Map<string, PublishedRegister>();
  const gateways: PublishedGateway[] = [];
  for (const organization of inventory.organizations) {
    for (const gateway of organization.gateways) {
      const gatewayBase = `${settings.topicPrefix}/${topicLevel(organization.key)}/${topicLevel(gateway.serial)}`;
      gateways.push({
        gatewayId: gateway.id,
        orgKey: organization.key,
        serial: gateway.serial,
        statusTopic: `${gatewayBase}/status`,
      });
      for (const device of gateway.modbusDevices) {
        const deviceName = device.name ?? String(device.slaveId);
        for (const register of device.registers) {
          registers.set(register.id, {
            registerId: register.id,
            gatewayId: gateway.id,
            orgKey: organization.key,
            gatewaySerial: gateway.serial,
            gatewayName: gateway.name,
            deviceId: device.id,
            deviceName,
            registerName: register.name,
            unit: register.unit,
            scaleFactor: register.scaleFactor,
            dataType: register.dataType,
            deadband: settings.deadbands.get(register.id) ?? 0,
            topic: `${gatewayBase}/${topicLevel(deviceName)}/${topicLevel(register.name)}`,
          });
        }
      }
    }
  }
  return { registers, gateways };
}

/** Events of an organisation: `{prefix}/{organization key}/events/{event type}`. */
export function eventTopic(settings: MqttSettings, orgKey: string, type: string): string {
  return `${settings.topicPrefix}/${topicLevel(orgKey)}/events/${type}`;
}
