/** The MQTT publisher's Prometheus metrics (docs/mqtt.md, "Watching the link"), read at each scrape. */
import { countedFrom, gaugedFrom, type MetricsRegistry } from "../lib/metrics.ts";
import { mqttLinkStates } from "../lib/mqtt-report.ts";
import type { MqttPublisher } from "./publisher.ts";

export function registerMqttMetrics(registry: MetricsRegistry, mqtt: MqttPublisher): void {
  const one = (value: () => number) => () => [{ labels: {}, value: value() }];
  gaugedFrom(
    registry,
    "fieldhub_mqtt_link_state",
    "1 for the MQTT link's current state (connecting, online, away, refused, tls_failed), 0 for the others",
    ["state"],
    () => {
      const now = mqtt.status().state;
      return mqttLinkStates.map((state) => ({ labels: { state }, value: state === now ? 1 : 0 }));
    },
  );
  countedFrom(
    registry,
    "fieldhub_mqtt_connects_total",
    "Connects to the MQTT broker",
    [],
    one(() => mqtt.status().connects),
  );
  countedFrom(
    registry,
    "fieldhub_mqtt_values_published_total",
    "Register values the MQTT broker took",
    [],
    one(() => mqtt.stats().values.published),
  );
  countedFrom(
    registry,
    "fieldhub_mqtt_values_held_back_total",
    "Register values read but not published (within the deadband and max_interval_s)",
    [],
    one(() => mqtt.stats().values.heldBack),
  );
  gaugedFrom(
    registry,
    "fieldhub_mqtt_values_waiting",
    "Register values waiting for the MQTT broker (at most one per register)",
    [],
    one(() => mqtt.stats().values.waiting),
  );
  countedFrom(
    registry,
    "fieldhub_mqtt_events_published_total",
    "Events the MQTT broker acknowledged",
    [],
    one(() => mqtt.stats().events.published),
  );
  if (mqtt.stats().sparkplug === null) return;
  gaugedFrom(
    registry,
    "fieldhub_mqtt_sparkplug_link_state",
    "1 for the Sparkplug edge node's connection's current state (connecting, online, away, refused, tls_failed), 0 for the others",
    ["state"],
    () => {
      const now = mqtt.sparkplugStatus()?.state;
      return mqttLinkStates.map((state) => ({ labels: { state }, value: state === now ? 1 : 0 }));
    },
  );
  countedFrom(
    registry,
    "fieldhub_mqtt_sparkplug_births_total",
    "Sparkplug NBIRTHs published (each connect and each rebirth request)",
    [],
    one(() => mqtt.stats().sparkplug?.births ?? 0),
  );
  countedFrom(
    registry,
    "fieldhub_mqtt_sparkplug_historical_readings_total",
    "Stored readings sent as historical Sparkplug DDATA after an outage",
    [],
    one(() => mqtt.stats().sparkplug?.historicalSent ?? 0),
  );
}
