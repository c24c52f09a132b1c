/**
 * Forwarding a site's inventory and readings to its central (docs/fleet.md,
 * "Forwarding"). The site's own history is the buffer: each round sends, oldest
 * first, every stored reading newer than the position the central acknowledged for
 * its register, in batches the central stores idempotently (a resent batch stores
 * nothing twice). Only committed readings are read, so nothing is forwarded that a
 * crash of the site could take back.
 */
import { isAlertEventType } from "../lib/edge-protocol/alerts.ts";
import { inventoryToWire } from "../lib/edge-protocol/inventory.ts";
import { maxForwardedAlertEvents, maxForwardedReadings } from "../lib/edge-protocol/limits.ts";
import { edgeMessages, type RequestOf } from "../lib/edge-protocol/messages.ts";
import type { ForwardedModbusDevice } from "../lib/edge-protocol/status.ts";
import type { InventoryGateway, InventoryRegister } from "../lib/inventory.ts";
import { presentAlert } from "../lib/present-alert.ts";
import type { ReadingAggregate } from "../lib/reading-aggregate.ts";
import type { AlertRequestAction, AlertRow } from "../store/contract/alerts.ts";
import type { Store } from "../store/index.ts";
import type { CentralClient } from "./central-client.ts";

type ReadingsBatch = RequestOf<typeof edgeMessages.readings>["readings"];

export interface ForwarderOptions {
  /** The calls to the central; each answer is checked before anything counts as forwarded. */
  central: CentralClient;
  store: Pick<Store, "gateways" | "events" | "alerts" | "registers" | "readings">;
  /** What the site polls, with its stable ids (the config's inventory). */
  gateways: readonly InventoryGateway[];
  now(): number;
  /**
   * Applies an acknowledge or resolve asked on the central (the site's alerts
   * service, which records its event); one that no longer applies (the alert is
   * already there, or gone) is done too.
   */
  applyAlertRequest(request: AlertRequestFromCentral): Promise<void>;
  /** Each Modbus device of a gateway with its announced state (the site's Modbus device status tracker). */
  modbusDevices(gatewayId: string): ForwardedModbusDevice[];
}

/** An acknowledge or resolve asked on the central of one of the site's alerts (docs/fleet.md, "Alerts"). */
export interface AlertRequestFromCentral {
  alertId: string;
  action: AlertRequestAction;
  note: string | null;
}

export interface ForwardStats {
  /**
   * Readings of this site the central has taken since start: each batch counted when
   * its receipt is read, or, when the receipt was lost (the central stored the batch
   * but its answer never came), when the central's positions at the next connection
   * show it stored. A reading sent again only to bring its aggregate is not counted
   * again.
   */
  forwarded: number;
  /** Of those, the readings counted by a receipt the site read (stored, or already there). */
  acknowledged: number;
  /** Readings of a batch whose receipt was lost, not yet known to be at the central or not: 0 or one batch. */
  unconfirmed: number;
  /** The newest reading time the central acknowledged (Unix ms), or null. */
  forwardedThrough: number | null;
  /**
   * When the last round that sent everything began (Unix ms), or null: every
   * reading stored before then is at the central.
   */
  completeThrough: number | null;
  /** Alert events the central acknowledged (recorded, or already there). */
  alertEvents: number;
}

/**
 * A catch-up: from a (re)connection's first round until a round has sent everything
 * (docs/fleet.md, "Sites": connected, catching up).
 */
export interface CatchUp {
  /** When the catch-up began (the connection's first round, Unix ms). */
  since: number;
  /** Readings the central took in it so far. */
  readings: number;
}

export function createForwarder(options: ForwarderOptions) {
  const { store } = options;
  /**
   * The device-read scale factors the inventory carried when last sent on this
   * connection (null: not sent yet): a change sends it again.
   */
  let inventorySentWith: string | null = null;
  let positions: Map<string, number> | null = null;
  /**
   * Each register's newest reading the central took without an aggregate (its storage
   * period was in progress): sent again once the aggregate is stored here. Starts at
   * the central's positions, so a restart sends the last reading again once.
   */
  let awaitingAggregate = new Map<string, number>();
  /**
   * The status the central last took of each gateway, as "status lastSeen" and each
   * Modbus device's announced status: only changes are sent again.
   */
  let statusSent = new Map<string, string>();
  const stats: ForwardStats = {
    forwarded: 0,
    acknowledged: 0,
    unconfirmed: 0,
    forwardedThrough: null,
    completeThrough: null,
    alertEvents: 0,
  };
  /** The batch sent whose receipt has not been read (cleared by its receipt, or weighed against the next positions). */
  let unreceipted: ReadingsBatch | null = null;
  /** The catch-up of this connection, until a round sends everything; a new connection starts one (reset). */
  let catchUp: CatchUp | null = null;
  let connectionFresh = true;
  /** Requests applied by this process, so one asked again before its outcome reached the central is not applied twice. */
  const appliedRequests = new Set<string>();
  /** What the site polls: replaced by a reload at the start of the next round (retarget). */
  let siteList = options.gateways;
  let retargeted: readonly InventoryGateway[] | null = null;
  let siteGateways = new Set<string>();
  let siteRegisters = new Set<string>();
  // Registers scaled by a register of their device (config scale_factor_register): the
  // inventory carries the factor as the store holds it, so the central's value is the site's.
  let deviceScaled: InventoryRegister[] = [];
  const indexSite = () => {
    siteGateways = new Set(siteList.map((gateway) => gateway.id));
    const registers = siteList.flatMap((gateway) => gateway.modbusDevices.flatMap((device) => device.registers));
    siteRegisters = new Set(registers.map((register) => register.id));
    deviceScaled = registers.filter((register) => register.scaleFactorFromDevice === true);
  };
  indexSite();
  // Alerts of the site's gateways only: the central takes no other (a seeded alert without one, say).
  const isSiteAlert = (alert: AlertRow): alert is SiteAlert =>
    alert.gatewayUuid !== null && siteGateways.has(alert.gatewayUuid);
  let openAlertsSent = false;
  const startedAt = options.now();

  const { central } = options;

  /** Readings the central has taken: counted in the totals and in the catch-up. */
  const taken = (count: number): void => {
    stats.forwarded += count;
    if (catchUp !== null) catchUp.readings += count;
  };

  /**
   * Sends a batch. `counts`: its rows are readings the central has not taken yet
   * (not a reading sent again with its aggregate).
   */
  const send = async (batch: ReadingsBatch, counts = true): Promise<void> => {
    if (counts) unreceipted = batch;
    try {
      // Counted only once the central's receipt is read: an unreadable answer throws first.
      await central.call(edgeMessages.readings, { readings: batch });
    } catch (error) {
      if (counts) stats.unconfirmed = batch.length;
      throw error;
    }
    for (const row of batch) {
      const [uuid, ts] = row;
      if (row.length > 3 && awaitingAggregate.get(uuid) === ts) awaitingAggregate.delete(uuid);
      if (ts > (positions?.get(uuid) ?? Number.NEGATIVE_INFINITY)) positions?.set(uuid, ts);
      if (ts > (stats.forwardedThrough ?? Number.NEGATIVE_INFINITY)) stats.forwardedThrough = ts;
    }
    if (!counts) return;
    unreceipted = null;
    stats.unconfirmed = 0;
    stats.acknowledged += batch.length;
    taken(batch.length);
  };

  /**
   * A batch whose receipt was lost, weighed against the central's positions: the
   * readings at or before their register's position are there (the central stores a
   * batch in one transaction, oldest first), so they count; the others are sent
   * again by this round.
   */
  const settleUnreceipted = (atCentral: ReadonlyMap<string, number>): void => {
    if (unreceipted === null) return;
    let there = 0;
    for (const [uuid, ts] of unreceipted) {
      if (ts > (atCentral.get(uuid) ?? Number.NEGATIVE_INFINITY)) continue;
      there++;
      if (ts > (stats.forwardedThrough ?? Number.NEGATIVE_INFINITY)) stats.forwardedThrough = ts;
    }
    unreceipted = null;
    stats.unconfirmed = 0;
    taken(there);
  };

  /**
   * The readings the central took before their storage period ended, sent again
   * with their aggregate once it is stored here (one look-up a register: the
   * reading's own second). One that has none after two days (the longest storage
   * period and then some) never will: a crash cut its period short.
   */
  const resendAggregated = async (ids: { id: number; uuid: string }[], goOn: () => boolean): Promise<void> => {
    const giveUpBefore = options.now() - 2 * 86_400_000;
    let batch: ReadingsBatch = [];
    for (const register of ids) {
      const ts = awaitingAggregate.get(register.uuid);
      if (ts === undefined) continue;
      if (ts < giveUpBefore) {
        awaitingAggregate.delete(register.uuid);
        continue;
      }
      const query = {
        registerIds: [register.id],
        since: ts,
        until: ts + 1,
        order: "asc" as const,
        limit: 1,
        after: null,
      };
      const [row] = (await store.readings.page(query)).rows;
      if (row === undefined || row.ts !== ts) awaitingAggregate.delete(register.uuid);
      if (row?.aggregate === undefined || row.aggregate === null) continue;
      // Taken off awaitingAggregate once the central has it (send).
      batch.push([register.uuid, row.ts, row.rawValue, ...wireAggregate(row.aggregate)]);
      if (batch.length === maxForwardedReadings) {
        await send(batch, false);
        batch = [];
        if (!goOn()) return;
      }
    }
    if (batch.length > 0) await send(batch, false);
  };

  /**
   * The gateways' status and last-seen time as this site's tracker stored them, with
   * their Modbus devices' announced states, when changed since last sent.
   */
  const sendStatus = async (): Promise<void> => {
    const changed: { id: string; sent: string }[] = [];
    const gateways: RequestOf<typeof edgeMessages.status>["gateways"] = [];
    for (const gateway of siteList) {
      const row = await store.gateways.statusOf(gateway.id);
      if (row === null) continue;
      const modbusDevices = options.modbusDevices(gateway.id);
      const sent = [row.status, row.lastSeen, ...modbusDevices.map((device) => `${device.id}:${device.status}`)].join(
        " ",
      );
      if (statusSent.get(gateway.id) === sent) continue;
      changed.push({ id: gateway.id, sent });
      gateways.push({ id: gateway.id, status: row.status, last_seen: row.lastSeen, modbus_devices: modbusDevices });
    }
    if (changed.length === 0) return;
    await central.call(edgeMessages.status, { gateways });
    for (const entry of changed) statusSent.set(entry.id, entry.sent);
  };

  /**
   * The site's alerts (docs/fleet.md, "Alerts"): first what the central asked,
   * applied here (the site is the alerts' one writer), then every alert event after
   * the central's position, oldest first, with the whole state of each alert named.
   */
  const forwardAlerts = async (goOn: () => boolean): Promise<void> => {
    const answer = await central.call(edgeMessages.alertPosition);
    const waiting = new Set<string>();
    for (const asked of answer.requests) {
      const key = `${asked.alert_id} ${asked.action} ${asked.requested_at}`;
      waiting.add(key);
      if (appliedRequests.has(key)) continue;
      await options.applyAlertRequest({ alertId: asked.alert_id, action: asked.action, note: asked.note });
      appliedRequests.add(key);
    }
    // A request the central no longer lists is answered: forgotten, so the set stays as small as what waits.
    for (const key of appliedRequests) if (!waiting.has(key)) appliedRequests.delete(key);
    let position = answer.forwarded_through;
    while (goOn()) {
      const stored = await store.events.alertEventsAfter(position, maxForwardedAlertEvents);
      if (stored.length === 0) break;
      position = stored[stored.length - 1]?.id ?? position;
      const events = stored.flatMap(({ type, ...event }) => (isAlertEventType(type) ? [{ ...event, type }] : []));
      const named = [...new Set(events.map((event) => String(event.data.alert_id)))];
      const alerts = (await store.alerts.byUuids(named)).filter(isSiteAlert);
      const sent = new Set(alerts.map((alert) => alert.uuid));
      const forwarded = events.filter((event) => sent.has(String(event.data.alert_id)));
      if (forwarded.length === 0) continue;
      await central.call(edgeMessages.alerts, {
        alerts: alerts.map(presentForwardedAlert),
        events: forwarded.map((event) => ({
          seq: event.id,
          message_id: event.messageId,
          type: event.type,
          occurred_at: event.occurredAt,
          data: event.data,
        })),
      });
      stats.alertEvents += forwarded.length;
    }
    if (!openAlertsSent && goOn()) await sendOpenAlerts();
  };

  /**
   * Once per connection, the state of every open alert: one whose events the site
   * no longer has (older than its delivery log's retention when the link was down
   * that long) still reaches the central.
   */
  const sendOpenAlerts = async (): Promise<void> => {
    const open = (await store.alerts.allOpen()).map((alert) => alert.uuid);
    for (let start = 0; start < open.length; start += maxForwardedAlertEvents) {
      const alerts = (await store.alerts.byUuids(open.slice(start, start + maxForwardedAlertEvents))).filter(
        isSiteAlert,
      );
      if (alerts.length > 0)
        await central.call(edgeMessages.alerts, { alerts: alerts.map(presentForwardedAlert), events: [] });
    }
    openAlertsSent = true;
  };

  return {
    stats: (): ForwardStats => stats,
    /** The catch-up in progress: from a new connection's first round until a round sent everything; null otherwise. */
    catchUp: (): CatchUp | null => (catchUp === null ? null : { ...catchUp }),
    /**
     * How far behind the central is at `now`: every reading stored before `now`
     * minus this is there. Since start while no round has completed.
     */
    lagMs: (now: number): number => Math.max(0, now - (stats.completeThrough ?? startedAt)),
    /** After a failure or a reconnect the inventory is sent and the positions asked again. */
    reset(): void {
      connectionFresh = true;
      catchUp = null;
      inventorySentWith = null;
      positions = null;
      statusSent = new Map();
      openAlertsSent = false;
    },
    /**
     * A reloaded inventory (docs/fleet.md, "Forwarding"): taken at the start of the
     * next round, which sends it to the central first, on the same link, keeping the
     * positions, the counters and the catch-up; a round in progress ends with the
     * gateways it began with.
     */
    retarget(next: readonly InventoryGateway[]): void {
      retargeted = next;
    },
    /**
     * One round: the inventory if not yet sent (or a scale factor read from a device
     * changed since), then every reading newer than its position, while `goOn()`
     * (checked between batches: a stop need not wait for a long catch-up). Throws
     * CentralCallError.
     */
    async forward(goOn: () => boolean = () => true): Promise<void> {
      const began = options.now();
      if (retargeted !== null) {
        siteList = retargeted;
        retargeted = null;
        indexSite();
        inventorySentWith = null;
      }
      if (connectionFresh) {
        connectionFresh = false;
        catchUp = { since: began, readings: 0 };
      }
      const ids = (await store.registers.allIds()).filter((register) => siteRegisters.has(register.uuid));
      const storedFactors = new Map(ids.map((register) => [register.uuid, register.scaleFactor]));
      const deviceFactors = deviceScaled.map((register) => storedFactors.get(register.id) ?? null);
      const sentWith = JSON.stringify(deviceFactors);
      if (inventorySentWith !== sentWith) {
        const wire = siteList.map((gateway) => inventoryToWire(withStoredScaleFactors(gateway, storedFactors)));
        await central.call(edgeMessages.inventory, { gateways: wire });
        inventorySentWith = sentWith;
      }
      if (positions === null) {
        const answer = await central.call(edgeMessages.positions);
        positions = new Map(Object.entries(answer.positions));
        awaitingAggregate = new Map(positions);
        settleUnreceipted(positions);
      }
      const known = positions;
      if (ids.length === 0) {
        await sendStatus();
        await forwardAlerts(goOn);
        stats.completeThrough = began;
        catchUp = null;
        return;
      }
      const uuidOf = new Map(ids.map((register) => [register.id, register.uuid]));
      await resendAggregated(ids, goOn);
      // Oldest first from the register furthest behind; a register the central has nothing of starts at the beginning.
      const since = Math.min(...ids.map((register) => (known.get(register.uuid) ?? -1) + 1));
      let batch: ReadingsBatch = [];
      for await (const page of store.readings.scan({
        registerIds: ids.map((register) => register.id),
        since: Math.max(0, since),
        until: options.now() + 60_000,
        pageSize: maxForwardedReadings,
      })) {
        for (const row of page) {
          const uuid = uuidOf.get(row.registerId) ?? "";
          if (row.ts <= (known.get(uuid) ?? Number.NEGATIVE_INFINITY)) continue;
          const aggregate = row.aggregate ?? null;
          if (aggregate === null) {
            awaitingAggregate.set(uuid, row.ts);
            batch.push([uuid, row.ts, row.rawValue]);
          } else {
            awaitingAggregate.delete(uuid);
            batch.push([uuid, row.ts, row.rawValue, ...wireAggregate(aggregate)]);
          }
          if (batch.length === maxForwardedReadings) {
            await send(batch);
            batch = [];
            if (!goOn()) return;
          }
        }
      }
      if (batch.length > 0) await send(batch);
      await sendStatus();
      await forwardAlerts(goOn);
      stats.completeThrough = began;
      catchUp = null;
    },
  };
}

export type Forwarder = ReturnType<typeof createForwarder>;

/**
 * The gateway with each register scaled by its device carrying the factor the site's
 * store holds (null until first read: the central then keeps its own).
 */
function withStoredScaleFactors(
  gateway: InventoryGateway,
  storedFactors: ReadonlyMap<string, number | null>,
): InventoryGateway {
  return {
    ...gateway,
    modbusDevices: gateway.modbusDevices.map((device) => ({
      ...device,
      registers: device.registers.map((register) =>
        register.scaleFactorFromDevice === true
          ? { ...register, scaleFactor: storedFactors.get(register.id) ?? null }
          : register,
      ),
    })),
  };
}

/** A reading's aggregate on the edge wire: JSON has no NaN, so a NaN part goes as null. */
function wireAggregate(aggregate: ReadingAggregate): [number | null, number | null, number | null, number] {
  const part = (value: number) => (Number.isNaN(value) ? null : value);
  return [part(aggregate.rawMin), part(aggregate.rawMax), part(aggregate.rawMean), aggregate.samples];
}

/** An alert of one of the site's gateways. */
type SiteAlert = AlertRow & { gatewayUuid: string };

/**
 * An alert's whole state as `POST /edge/v1/alerts` takes it: the one alert presenter,
 * times in Unix ms, and its register (so the central's status events name it too).
 */
const presentForwardedAlert = (alert: SiteAlert) => ({
  ...presentAlert(alert, (ms) => ms),
  register_id: alert.registerUuid,
});
