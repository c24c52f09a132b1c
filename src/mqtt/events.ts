/**
 * Events to the broker from the store's outbox (docs/mqtt.md, "Events"): not
 * retained, QoS 1, each with the webhook's envelope and id. The publisher keeps
 * its own position in the outbox in the store: a batch is published, every
 * PUBACK awaited, then the position moves past it. So an event recorded while the
 * broker was away, or while fieldhub was down, goes out when both are back, in
 * the order recorded; one whose PUBACK a lost connection or a crash cut off is
 * sent again (at least once; receivers deduplicate by `id`).
 */
import { eventEnvelope } from "../lib/event-envelope.ts";
import { LoggedFailure } from "../lib/log-once.ts";
import type { Logger } from "../lib/logger.ts";
import type { MqttSettings } from "../lib/mqtt-settings.ts";
import { createWakeSignal } from "../lib/wake-signal.ts";
import { type EventStore, testEventType } from "../store/contract/events.ts";
import type { OrganizationStore } from "../store/contract/organizations.ts";
import type { Session } from "./connection.ts";
import { eventTopic } from "./topics.ts";

/** The outbox position's name in the store. */
export const mqttPublisher = "mqtt";

const batchSize = 1000;

export interface EventStats {
  published: number;
  /** Row id of the last event the broker took. */
  position: number;
}

export async function startEventPublisher(options: {
  settings: MqttSettings;
  events: Pick<EventStore, "eventsAfter" | "positionOf" | "savePosition">;
  organizations: Pick<OrganizationStore, "list">;
  logger: Logger;
  session: () => Session | null;
  pollEveryMs?: number;
}) {
  const { settings, events, organizations, logger } = options;
  const pollEveryMs = options.pollEveryMs ?? 1000;
  let position = await events.positionOf(mqttPublisher);
  /** Moved past in memory but not yet written (the store refused it). */
  let unsaved = false;
  const stats: EventStats = { published: 0, position };
  const orgKeys = new Map<number, string>();
  const readFailure = new LoggedFailure();
  const saveFailure = new LoggedFailure();
  let stopped = false;
  const wakeSignal = createWakeSignal();
  /** Settles when stop() is called: a batch waiting on a broker that never acknowledges is not waited for. */
  const stopping = Promise.withResolvers<void>();

  async function orgKey(orgId: number): Promise<string | null> {
    if (!orgKeys.has(orgId)) for (const org of await organizations.list()) orgKeys.set(org.id, org.key);
    return orgKeys.get(orgId) ?? null;
  }

  async function savePosition(): Promise<void> {
    if (!unsaved) return;
    try {
      await events.savePosition(mqttPublisher, position);
      unsaved = false;
      if (saveFailure.ended()) logger.info("MQTT outbox position written again");
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (saveFailure.occurred(message))
        logger.error({ err: error }, "MQTT outbox position write failed; kept and written again");
    }
  }

  /** One batch; true when it moved (so the next one is read at once). */
  async function publishBatch(session: Session): Promise<boolean> {
    const batch = await events.eventsAfter(position, batchSize);
    if (batch.length === 0) return false;
    const acks: Promise<unknown>[] = [];
    for (const event of batch) {
      const key = await orgKey(event.orgId);
      // An event of an organisation removed since has no topic left, and the webhook
      // test message is for one endpoint: both are passed over.
      if (key === null || event.type === testEventType) continue;
      const body = eventEnvelope(event.messageId, event.type, event.occurredAt, JSON.stringify(event.data));
      acks.push(session.client.publishAsync(eventTopic(settings, key, event.type), body, { qos: 1, retain: false }));
    }
    await Promise.race([Promise.all(acks), session.lost, stopping.promise]);
    // Stopped before every PUBACK came: the position stays, the batch goes again at the next start.
    if (stopped) return false;
    const lastId = batch[batch.length - 1]?.id ?? position;
    stats.published += acks.length;
    position = lastId;
    stats.position = lastId;
    unsaved = true;
    await savePosition();
    return true;
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      let moved = false;
      const session = options.session();
      await savePosition();
      if (session !== null) {
        try {
          moved = await publishBatch(session);
          if (readFailure.ended()) logger.info("MQTT events flowing again");
        } catch (error) {
          // A connection lost mid-batch, or an outbox read the store refused: the batch is read again.
          const message = error instanceof Error ? error.message : String(error);
          if (readFailure.occurred(message))
            logger.warn({ reason: message }, "MQTT events held; sent again when possible");
        }
      }
      if (!moved) {
        await wakeSignal.pause(pollEveryMs);
      }
    }
  }

  const running = loop();
  return {
    /** An event was recorded (or the link came back): look at the outbox now. */
    wake: wakeSignal.wake,
    stats: (): EventStats => ({ ...stats }),
    async stop(): Promise<void> {
      stopped = true;
      stopping.resolve();
      wakeSignal.wake();
      await running;
      await savePosition();
    },
  };
}
