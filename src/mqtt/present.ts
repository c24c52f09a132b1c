/**
 * The MQTT link as /healthz shows it (docs/mqtt.md, "Watching the link"): its
 * state and why, the last connect, and what waits. Never the URL's credentials
 * or the password (the URL carries none: config/mqtt-checks.ts).
 */
import { isoFromMs } from "../lib/clock.ts";
import type { MqttPublisher } from "./publisher.ts";

export function presentMqttLink(mqtt: MqttPublisher) {
  const link = mqtt.status();
  const { values, events, sparkplug } = mqtt.stats();
  const sparkplugLink = mqtt.sparkplugStatus();
  return {
    state: link.state,
    reason: link.reason,
    connected_at: link.connectedAt === null ? null : isoFromMs(link.connectedAt),
    values_waiting: values.waiting,
    events_published: events.published,
    // The Sparkplug edge node's own connection (docs/mqtt.md, "Sparkplug B").
    ...(sparkplug === null || sparkplugLink === null
      ? {}
      : {
          sparkplug: {
            state: sparkplugLink.state,
            reason: sparkplugLink.reason,
            bd_seq: sparkplug.bdSeq,
            history_through: isoFromMs(sparkplug.historyThrough),
            replaying: sparkplug.replaying,
          },
        }),
  };
}
