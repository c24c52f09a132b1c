/**
 * fieldhub as an MQTT publisher (docs/mqtt.md): the link to the broker, register
 * values, gateway status and events from the outbox, Home Assistant discovery and
 * a Sparkplug B edge node (sparkplug/, on a connection of its own) when configured. Started by app/parts.ts when the config has an `mqtt` section; the
 * pollers hand values over without waiting (`offer`), so nothing here can slow a
 * poll or a request. A reload's new inventory is taken on the same connections
 * (`retarget`).
 */
import type { Clock } from "../lib/clock.ts";
import type { Inventory } from "../lib/inventory.ts";
import type { Logger } from "../lib/logger.ts";
import type { MqttSettings } from "../lib/mqtt-settings.ts";
import type { Store } from "../store/index.ts";
import { openLink, type Session, statusTopic } from "./connection.ts";
import { startEventPublisher } from "./events.ts";
import { discoveryFilters, discoveryMessages } from "./home-assistant.ts";
import { startSparkplugNode } from "./sparkplug/edge-node.ts";
import { topicCatalogue } from "./topics.ts";
import { createValuePublisher } from "./values.ts";

/** A gateway's status as MQTT shows it: online, or offline (anything else: offline, error, pending). */
export type GatewayPresence = "online" | "offline";

export async function startMqtt(options: {
  settings: MqttSettings;
  inventory: Inventory;
  store: Pick<Store, "events" | "organizations" | "sparkplug" | "readings" | "registers">;
  clock: Clock;
  logger: Logger;
  /** Each gateway's status now (the gateway status tracker's), for the retained status topics on connect. */
  gatewayStatus: (gatewayId: string) => string | null;
  /** Whether a Modbus device's `modbus_device.offline` stands now (Sparkplug's DDEATH). */
  modbusDeviceOffline: (deviceId: string) => boolean;
  /** How long after its time a reading is surely committed (Sparkplug's history after an outage). */
  settleMs: number;
}) {
  const { settings, clock, logger } = options;
  /** The registers and gateways published now: replaced in place by a reload (retarget). */
  let catalogue = topicCatalogue(options.inventory, settings);
  let current: Session | null = null;
  const session = () => current;
  const values = createValuePublisher({
    settings,
    registers: catalogue.registers,
    monotonic: () => clock.monotonic(),
    session,
  });
  const presence = new Map<string, GatewayPresence>();
  const presenceOf = (status: string | null): GatewayPresence => (status === "online" ? "online" : "offline");
  for (const gateway of catalogue.gateways)
    presence.set(gateway.gatewayId, presenceOf(options.gatewayStatus(gateway.gatewayId)));
  const homeAssistant = settings.homeAssistant;
  const discovery = () =>
    homeAssistant === null ? [] : discoveryMessages(settings, homeAssistant.discoveryPrefix, catalogue);
  /** This fieldhub's discovery config topics now: a retained one elsewhere under its node is cleared. */
  let discoveryTopics = new Set(discovery().map((message) => message.topic));
  /**
   * Retained topics a reload took away (values of removed registers, their discovery
   * configs, removed gateways' status), cleared with an empty retained message on this
   * connection or the next.
   */
  const clearing = new Set<string>();

  function publishRetained(session: Session, topic: string, payload: string): void {
    session.client.publish(topic, payload, { qos: settings.qos, retain: true }, () => {});
  }

  function publishPresence(session: Session, gatewayId: string): void {
    const gateway = catalogue.gateways.find((entry) => entry.gatewayId === gatewayId);
    const state = presence.get(gatewayId);
    if (gateway !== undefined && state !== undefined) publishRetained(session, gateway.statusTopic, state);
  }

  function clearGone(session: Session): void {
    for (const topic of clearing)
      session.client.publish(topic, "", { qos: settings.qos, retain: true }, (error) => {
        if (error === undefined || error === null) clearing.delete(topic);
      });
  }

  /**
   * Home Assistant discovery on every connect: the configs of the registers there
   * are, and an empty retained message for a config of this fieldhub's that the
   * broker still holds for a register no longer there (home-assistant.ts).
   */
  function announce(session: Session, discoveryPrefix: string): void {
    session.client.on("message", (topic, payload, packet) => {
      if (packet.retain && payload.length > 0 && !discoveryTopics.has(topic)) publishRetained(session, topic, "");
    });
    session.client.subscribe(discoveryFilters(settings, discoveryPrefix), { qos: 1 });
    for (const message of discovery()) publishRetained(session, message.topic, message.payload);
  }

  const sparkplug =
    settings.sparkplug === null
      ? null
      : await startSparkplugNode({
          settings,
          sparkplug: settings.sparkplug,
          registers: catalogue.registers,
          store: options.store,
          clock,
          logger,
          gatewayStatus: options.gatewayStatus,
          deviceOffline: options.modbusDeviceOffline,
          settleMs: options.settleMs,
        });

  let events: Awaited<ReturnType<typeof startEventPublisher>> | null = null;
  const link = openLink({
    settings,
    logger,
    now: () => clock.now(),
    onSession(next) {
      current = next;
      next.lost.catch(() => {
        if (current === next) current = null;
      });
      publishRetained(next, statusTopic(settings), "online");
      for (const gateway of catalogue.gateways) publishPresence(next, gateway.gatewayId);
      clearGone(next);
      if (homeAssistant !== null) announce(next, homeAssistant.discoveryPrefix);
      values.resume();
      events?.wake();
    },
  });
  events = await startEventPublisher({
    settings,
    events: options.store.events,
    organizations: options.store.organizations,
    logger,
    session,
  });
  const eventPublisher = events;

  return {
    /** Values as read; returns at once (values.ts, sparkplug/edge-node.ts). */
    offer(read: Parameters<typeof values.offer>[0]): void {
      values.offer(read);
      sparkplug?.offer(read);
    },
    /** An event was recorded: the outbox is read now. */
    eventRecorded: eventPublisher.wake,
    /** A gateway's status changed (the status tracker's onChange). */
    gatewayChanged(gatewayId: string, status: string): void {
      const next = presenceOf(status);
      sparkplug?.gatewayChanged(gatewayId, status);
      if (presence.get(gatewayId) === next || !presence.has(gatewayId)) return;
      presence.set(gatewayId, next);
      if (current !== null) publishPresence(current, gatewayId);
    },
    /** A Modbus device was announced offline or online (the Modbus device status tracker's onChange). */
    modbusDeviceChanged(deviceId: string, status: "online" | "offline"): void {
      sparkplug?.modbusDeviceChanged(deviceId, status);
    },
    /**
     * A reloaded inventory taken on the same connections (docs/config.md, "Reloading
     * the config"; docs/mqtt.md, "A reload"): new registers and gateways get their
     * topics (and discovery configs), removed ones have their retained messages
     * cleared, unchanged ones go on with their deadband and max_interval_s state;
     * the Sparkplug edge node rebirths only the devices whose metrics changed.
     */
    retarget(inventory: Inventory, deadbands: MqttSettings["deadbands"]): void {
      const before = catalogue;
      const discoveredBefore = new Map(discovery().map((message) => [message.topic, message.payload]));
      catalogue = topicCatalogue(inventory, { ...settings, deadbands });
      const discovered = discovery();
      discoveryTopics = new Set(discovered.map((message) => message.topic));
      const kept = new Set([
        ...[...catalogue.registers.values()].map((register) => register.topic),
        ...catalogue.gateways.map((gateway) => gateway.statusTopic),
        ...discoveryTopics,
      ]);
      const gone = [
        ...[...before.registers.values()].map((register) => register.topic),
        ...before.gateways.map((gateway) => gateway.statusTopic),
        ...discoveredBefore.keys(),
      ];
      for (const topic of gone) if (!kept.has(topic)) clearing.add(topic);
      for (const topic of kept) clearing.delete(topic);
      const statusBefore = new Map(before.gateways.map((gateway) => [gateway.gatewayId, gateway.statusTopic]));
      const newStatus = catalogue.gateways.filter(
        (gateway) => statusBefore.get(gateway.gatewayId) !== gateway.statusTopic,
      );
      for (const gatewayId of presence.keys())
        if (!catalogue.gateways.some((gateway) => gateway.gatewayId === gatewayId)) presence.delete(gatewayId);
      for (const gateway of catalogue.gateways)
        if (!presence.has(gateway.gatewayId))
          presence.set(gateway.gatewayId, presenceOf(options.gatewayStatus(gateway.gatewayId)));
      values.retarget(catalogue.registers);
      sparkplug?.retarget(catalogue.registers);
      const now = current;
      if (now === null) return;
      clearGone(now);
      for (const gateway of newStatus) publishPresence(now, gateway.gatewayId);
      for (const message of discovered)
        if (discoveredBefore.get(message.topic) !== message.payload)
          publishRetained(now, message.topic, message.payload);
    },
    status: link.status,
    /** The Sparkplug connection's state, or null without `sparkplug`. */
    sparkplugStatus: () => sparkplug?.status() ?? null,
    stats: () => ({ values: values.stats(), events: eventPublisher.stats(), sparkplug: sparkplug?.stats() ?? null }),
    async stop(): Promise<void> {
      values.stop();
      await sparkplug?.stop();
      await eventPublisher.stop();
      await link.stop();
    },
  };
}

export type MqttPublisher = Awaited<ReturnType<typeof startMqtt>>;
