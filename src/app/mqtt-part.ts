/**
 * Publishing to an MQTT broker (docs/mqtt.md): values from the poll sink, gateway
 * status from the tracker, events from the outbox, and what /healthz and /metrics
 * show of the link. A box without `mqtt` has none: every call does nothing.
 */
import type { FieldhubConfig } from "../config/index.ts";
import type { Clock } from "../lib/clock.ts";
import { urlForLog } from "../lib/log-url.ts";
import type { Logger } from "../lib/logger.ts";
import type { MetricsRegistry } from "../lib/metrics.ts";
import type { MqttView } from "../lib/mqtt-report.ts";
import type { MqttSettings } from "../lib/mqtt-settings.ts";
import type { PolledValue } from "../lib/polled-value.ts";
import { registerMqttMetrics } from "../mqtt/metrics.ts";
import { presentMqttLink } from "../mqtt/present.ts";

/** The events after the MQTT position are counted up to this many for the admin page (one indexed count). */
const eventsWaitingCap = 100_000;

import type { Store } from "../store/index.ts";

export async function startMqttPart(options: {
  config: Pick<FieldhubConfig, "mqtt" | "inventory" | "storage">;
  store: Pick<Store, "events" | "organizations" | "sparkplug" | "readings" | "registers">;
  clock: Clock;
  logger: Logger;
  metrics: MetricsRegistry;
  /** Each gateway's status now (the status tracker's), for the retained status topics. */
  gatewayStatus: (gatewayId: string) => string | null;
  /** Whether a Modbus device's `modbus_device.offline` stands now (the Modbus device status tracker's). */
  modbusDeviceOffline: (deviceId: string) => boolean;
}) {
  const settings = options.config.mqtt;
  // Loaded only with `mqtt` configured: a box without it never evaluates MQTT.js (docs/benchmarks.md, "Footprint").
  const publisher =
    settings === null
      ? null
      : await (await import("../mqtt/publisher.ts")).startMqtt({
          settings,
          inventory: options.config.inventory,
          store: options.store,
          clock: options.clock,
          logger: options.logger,
          gatewayStatus: options.gatewayStatus,
          modbusDeviceOffline: options.modbusDeviceOffline,
          // A reading is committed within the commit interval of its read; two seconds for a busy box.
          settleMs: options.config.storage.commitIntervalMs + 2000,
        });
  if (publisher !== null) registerMqttMetrics(options.metrics, publisher);
  return {
    /** Values as read; returns at once (mqtt/values.ts). */
    offer: (values: readonly PolledValue[]): void => publisher?.offer(values),
    eventRecorded: (): void => publisher?.eventRecorded(),
    gatewayChanged: (gatewayId: string, status: string): void => publisher?.gatewayChanged(gatewayId, status),
    modbusDeviceChanged: (deviceId: string, status: "online" | "offline"): void =>
      publisher?.modbusDeviceChanged(deviceId, status),
    /** For /healthz: a broker merely away is an outage fieldhub rides out; a refusal needs the operator. */
    healthCheck: () => {
      const link = publisher?.status();
      return link?.state === "refused" || link?.state === "tls_failed"
        ? {
            ok: false as const,
            problem: `MQTT broker ${link.state === "refused" ? "refused the connection" : "TLS failed"}: ${link.reason}`,
          }
        : { ok: true as const };
    },
    healthDetails: (): Record<string, unknown> => (publisher === null ? {} : { mqtt: presentMqttLink(publisher) }),
    /**
     * The admin page's view of the same (docs/admin.md, "MQTT"), with the broker's URL
     * (scheme, host, port) and the events recorded after the MQTT position.
     */
    view: async (): Promise<MqttView> => {
      if (publisher === null || settings === null) return { configured: false };
      const report = presentMqttLink(publisher);
      const waiting = await options.store.events.countAfter(report.events_position, eventsWaitingCap);
      return { configured: true, broker_url: urlForLog(settings.url), events_waiting: waiting, ...report };
    },
    /**
     * Whether a reload to `next` can be taken on the running connections: the same
     * link settings (broker, identity, topics, Home Assistant, Sparkplug), deadbands
     * aside, which go with the registers. Otherwise the link restarts.
     */
    keepsLinkWith: (next: Pick<FieldhubConfig, "mqtt">): boolean =>
      settings !== null && next.mqtt !== null && linkSettings(settings) === linkSettings(next.mqtt),
    /** A reloaded inventory (and deadbands) on the same connections (mqtt/publisher.ts, retarget). */
    retarget: (next: Pick<FieldhubConfig, "mqtt" | "inventory">): void => {
      if (next.mqtt !== null) publisher?.retarget(next.inventory, next.mqtt.deadbands);
    },
    stop: async (): Promise<void> => {
      await publisher?.stop();
    },
  };
}

/** The `mqtt` settings that make the connections, as one comparable string (the password included, never shown). */
function linkSettings(settings: MqttSettings): string {
  const { deadbands: _deadbands, ...link } = settings;
  return JSON.stringify(link);
}

export type MqttPart = Awaited<ReturnType<typeof startMqttPart>>;
