/**
 * The `mqtt` section as the config decides it and the MQTT publisher reads it
 * (docs/config.md, "mqtt"; docs/mqtt.md): a shape both parts share without
 * depending on each other.
 */
export interface MqttSettings {
  /** mqtt://host[:port] or mqtts://host[:port]. */
  url: string;
  username: string | null;
  /** Read from password_file (or given inline); never logged. */
  password: string | null;
  /** PEM file of the CA that signed the broker's certificate (mqtts with a private CA). */
  caFile: string | null;
  clientId: string;
  topicPrefix: string;
  qos: 0 | 1;
  /** An unchanged value is published again at least this often. */
  maxIntervalMs: number;
  /** Home Assistant discovery, or null when not configured. */
  homeAssistant: { discoveryPrefix: string } | null;
  /** Sparkplug B 3.0 (docs/mqtt.md, "Sparkplug B"): this box's group and edge node ids, or null when not configured. */
  sparkplug: { groupId: string; edgeNodeId: string } | null;
  /** Deadband of each register that has one (engineering units), by register id; absent means 0. */
  deadbands: ReadonlyMap<string, number>;
}
