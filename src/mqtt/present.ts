/**
 * The MQTT link as /healthz and the admin API show it (docs/mqtt.md, "Watching the
 * link"): its state and why, since when, the last connect and failure, what was
 * published and what waits. Never the URL's credentials or the password (the URL
 * carries none: config/mqtt-checks.ts).
 */
import { isoFromMs } from "../lib/clock.ts";
import type { MqttLinkReport } from "../lib/mqtt-report.ts";
import type { MqttPublisher } from "./publisher.ts";

export function presentMqttLink(mqtt: MqttPublisher): MqttLinkReport {
  const link = mqtt.status();
  const { values, events, sparkplug } = mqtt.stats();
  const sparkplugLink = mqtt.sparkplugStatus();
  return {
    state: link.state,
    reason: link.reason,
    since: isoFromMs(link.since),
    connected_at: link.connectedAt === null ? null : isoFromMs(link.connectedAt),
    connects: link.connects,
    last_error: link.lastError?.reason ?? null,
    last_error_at: link.lastError === null ? null : isoFromMs(link.lastError.at),
    values_published: values.published,
    values_waiting: values.waiting,
    events_published: events.published,
    events_position: events.position,
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
