/**
 * fieldhub as a Sparkplug B 3.0 edge node (docs/mqtt.md, "Sparkplug B"), on its own
 * connection to the broker (client id `{client_id}-sparkplug`), since its last will
 * must be the node's NDEATH:
 *
 * - each connection's NDEATH will carries the next bdSeq (0..255): the one after
 *   the last connection's, kept in the store before the connect so a restart after
 *   `kill -9` goes on from it; attempts that did not connect reuse theirs, so the
 *   NBIRTH after an outage or a restart carries the one after the last NDEATH's;
 * - on connect: NBIRTH (seq 0, `bdSeq`, `Node Control/Rebirth`), then a DBIRTH per
 *   Modbus device that answers (it has given a value since start, its gateway is
 *   online and its `modbus_device.offline` does not stand), every register a
 *   metric with its value now;
 * - DDATA with the metrics that changed (the value topics' deadband and
 *   max_interval_s), by alias; DDEATH when a device stops answering
 *   (`modbus_device.offline`) or its gateway goes offline, DBIRTH when it is back;
 * - `seq` 1..255 then 0 on every message after NBIRTH;
 * - NCMD `Node Control/Rebirth` = true: NBIRTH and DBIRTHs again;
 * - a reload that changes the inventory (retarget): DDEATH and DBIRTH of the devices
 *   whose metrics changed, on the same session (no NDEATH, no NBIRTH);
 * - the stored readings the broker missed (while it was away, or fieldhub was down)
 *   as historical DDATA after the births (history.ts), from a position in the store.
 *
 * Sparkplug publishes at QoS 0 (NDEATH at 1). The history position moves only past
 * what the broker has taken: an UNSUBSCRIBE of a topic never subscribed is
 * answered after everything published before it on the connection (MQTT 3.1.1,
 * section 4.6: ordered delivery), which is the confirmation QoS 0 does not give.
 */
import type { IClientOptions } from "mqtt";
import type { Clock } from "../../lib/clock.ts";
import { LoggedFailure } from "../../lib/log-once.ts";
import type { Logger } from "../../lib/logger.ts";
import type { MqttSettings } from "../../lib/mqtt-settings.ts";
import type { PolledValue } from "../../lib/polled-value.ts";
import { scalerFor } from "../../lib/register-scaling.ts";
import { createWakeSignal } from "../../lib/wake-signal.ts";
import type { Store } from "../../store/index.ts";
import { openLink, type Session } from "../connection.ts";
import type { PublishedRegister } from "../topics.ts";
import { type LastPublished, worthPublishing } from "../value-gate.ts";
import {
  birthDeclaration,
  birthMetric,
  type SparkplugDevice,
  type SparkplugMetric,
  sparkplugDevices,
} from "./devices.ts";
import { replayHistory } from "./history.ts";
import { dataTypeNumber, decodePayload, encodePayload, type Metric, type Payload } from "./payload.ts";

const rebirthMetric = "Node Control/Rebirth";

export interface SparkplugStats {
  bdSeq: number;
  /** Every stored reading up to this time (Unix ms) has been sent, live or as history. */
  historyThrough: number;
  /** Whether history the broker missed is being sent now. */
  replaying: boolean;
  births: number;
  deviceDeaths: number;
  dataMessages: number;
  historicalSent: number;
  heldBack: number;
}

interface Waiting {
  metric: SparkplugMetric;
  value: PolledValue;
  engineering: number | string;
}

export async function startSparkplugNode(options: {
  settings: MqttSettings;
  sparkplug: { groupId: string; edgeNodeId: string };
  registers: ReadonlyMap<string, PublishedRegister>;
  store: Pick<Store, "sparkplug" | "readings" | "registers">;
  clock: Clock;
  logger: Logger;
  /** Each gateway's status now (the status tracker's): online, offline, pending or error; null when unknown. */
  gatewayStatus: (gatewayId: string) => string | null;
  /** Whether a Modbus device's `modbus_device.offline` stands now. */
  deviceOffline: (deviceId: string) => boolean;
  /** How long after its time a reading is surely committed (the ingest's commit interval and a margin). */
  settleMs: number;
  retryMs?: { first: number; longest: number };
}) {
  const { settings, clock, logger, store } = options;
  const { groupId, edgeNodeId } = options.sparkplug;
  const topic = (type: string, device?: string) =>
    `spBv1.0/${groupId}/${type}/${edgeNodeId}${device === undefined ? "" : `/${device}`}`;
  const ncmdTopic = topic("NCMD");
  // Never subscribed: its UNSUBACK confirms what went before (header comment).
  const barrierTopic = `${ncmdTopic}/confirm`;
  const stateKey = `${groupId}/${edgeNodeId}`;
  /** The devices published now: a reload replaces them (retarget). */
  let devices = sparkplugDevices(options.registers);
  const metricOf = new Map<string, { device: SparkplugDevice; metric: SparkplugMetric }>();
  const scalers = new Map<string, (raw: number) => number>();
  /** The highest alias given on this edge node since start: a reload's new metrics take the ones after it. */
  let highestAlias = 0;
  const indexMetrics = () => {
    metricOf.clear();
    scalers.clear();
    for (const device of devices.values())
      for (const metric of device.metrics) {
        metricOf.set(metric.register.registerId, { device, metric });
        scalers.set(metric.register.registerId, scalerFor(metric.register.scaleFactor));
        highestAlias = Math.max(highestAlias, metric.alias);
      }
  };
  indexMetrics();

  const saved = await store.sparkplug.stateOf(stateKey);
  const stats: SparkplugStats = {
    // The first connect uses 0 (Sparkplug 3.0: bdSeq starts at 0).
    bdSeq: saved?.bdSeq ?? 255,
    // A node configured for the first time starts now: earlier history is not replayed.
    historyThrough: saved?.historyThrough ?? clock.now(),
    replaying: false,
    births: 0,
    deviceDeaths: 0,
    dataMessages: 0,
    historicalSent: 0,
    heldBack: 0,
  };
  const gatewayState = new Map<string, string | null>();
  const deviceDown = new Set<string>();
  for (const device of devices.values()) {
    gatewayState.set(device.gatewayId, options.gatewayStatus(device.gatewayId));
    if (options.deviceOffline(device.deviceId)) deviceDown.add(device.deviceId);
  }
  /** Devices that have given a value since start: a DBIRTH declares values, not nulls. */
  const heard = new Set<string>();
  const alive = (device: SparkplugDevice) =>
    heard.has(device.deviceId) && gatewayState.get(device.gatewayId) === "online" && !deviceDown.has(device.deviceId);
  /**
   * Not yet known to answer or not: not born, not announced offline, its gateway
   * neither online nor down. History waits for these (a restart's first polls) for
   * at most `undecidedWaitMs` after the births; the history of a device down then
   * is not sent (it stays in the store and the API).
   */
  const undecided = (device: SparkplugDevice) => {
    const gateway = gatewayState.get(device.gatewayId);
    return (
      !born.has(device.deviceId) && !deviceDown.has(device.deviceId) && gateway !== "offline" && gateway !== "error"
    );
  };
  const undecidedWaitMs = 120_000;
  const latest = new Map<string, PolledValue>();
  const last = new Map<string, LastPublished>();
  const waiting = new Map<SparkplugDevice, Map<string, Waiting>>();
  const born = new Set<string>();
  let session: Session | null = null;
  let seq = 0;
  /** The births' time while the history before it is being sent, else null. */
  let replayUntil: number | null = null;
  /** Monotonic time of the births that began the current replay. */
  let replayBegan = 0;
  let stopped = false;
  /** Whether the last connect attempt connected (or none was made yet): the next one takes a new bdSeq. */
  let lastAttemptConnected = true;
  const saveFailure = new LoggedFailure();
  const replayFailure = new LoggedFailure();
  const commandFailure = new LoggedFailure();
  let lastSaveAt = clock.monotonic();

  async function save(): Promise<void> {
    lastSaveAt = clock.monotonic();
    try {
      await store.sparkplug.saveState(stateKey, { bdSeq: stats.bdSeq, historyThrough: stats.historyThrough });
      if (saveFailure.ended()) logger.info("Sparkplug state written again");
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (saveFailure.occurred(message))
        logger.error({ err: error }, "Sparkplug state write failed; kept and written again");
    }
  }

  function engineeringOf(value: PolledValue): number | string | null {
    if (value.text !== undefined) return value.text;
    return value.raw === null ? null : (scalers.get(value.registerId) ?? Number)(value.raw);
  }

  function publish(current: Session, to: string, payload: Payload): void {
    const bytes = encodePayload(payload);
    current.client.publish(to, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
      qos: 0,
      retain: false,
    });
  }

  const nextSeq = () => {
    seq = (seq + 1) % 256;
    return seq;
  };

  const bdSeqMetric = (timestamp: number): Metric => ({
    name: "bdSeq",
    timestamp,
    datatype: dataTypeNumber("Int64"),
    value: { long_value: stats.bdSeq },
  });

  function deviceBirth(current: Session, device: SparkplugDevice): void {
    const now = clock.now();
    const at = clock.monotonic();
    const metrics = device.metrics.map((metric) => {
      const value = latest.get(metric.register.registerId);
      if (value === undefined) return birthMetric(metric, now, { is_null: true });
      const engineering = engineeringOf(value);
      if (engineering !== null) last.set(metric.register.registerId, { value: engineering, at });
      return birthMetric(metric, value.ts, metric.valueOf(value.raw, value.text));
    });
    waiting.delete(device);
    publish(current, topic("DBIRTH", device.name), { timestamp: now, seq: nextSeq(), metrics });
    born.add(device.deviceId);
  }

  function births(current: Session): void {
    const now = clock.now();
    seq = 0;
    born.clear();
    waiting.clear();
    publish(current, topic("NBIRTH"), {
      timestamp: now,
      seq: 0,
      metrics: [
        bdSeqMetric(now),
        { name: rebirthMetric, timestamp: now, datatype: dataTypeNumber("Boolean"), value: { boolean_value: false } },
      ],
    });
    stats.births += 1;
    for (const device of devices.values()) if (alive(device)) deviceBirth(current, device);
  }

  /** Births and deaths the devices' states now call for. */
  let reconciling: ReturnType<typeof setTimeout> | null = null;
  function reconcileSoon(): void {
    // After the values the same poll reported: a DBIRTH carries them.
    if (reconciling === null) reconciling = setTimeout(reconcile, 0);
  }
  function reconcile(): void {
    reconciling = null;
    const current = session;
    if (current === null) return;
    for (const device of devices.values()) {
      if (alive(device) && !born.has(device.deviceId)) deviceBirth(current, device);
      else if (!alive(device) && born.has(device.deviceId)) deviceDeath(current, device);
    }
  }

  let flushing: ReturnType<typeof setTimeout> | null = null;
  function flush(): void {
    flushing = null;
    const current = session;
    if (current === null) {
      waiting.clear();
      return;
    }
    const at = clock.monotonic();
    for (const [device, entries] of waiting) {
      if (!born.has(device.deviceId)) continue;
      const metrics: Metric[] = [];
      for (const { metric, value, engineering } of entries.values()) {
        metrics.push({ alias: metric.alias, timestamp: value.ts, value: metric.valueOf(value.raw, value.text) });
        last.set(metric.register.registerId, { value: engineering, at });
      }
      publish(current, topic("DDATA", device.name), { timestamp: clock.now(), seq: nextSeq(), metrics });
      stats.dataMessages += 1;
    }
    waiting.clear();
  }

  function offer(values: readonly PolledValue[]): void {
    const now = clock.monotonic();
    for (const value of values) {
      const entry = metricOf.get(value.registerId);
      if (entry === undefined) continue;
      const engineering = engineeringOf(value);
      if (engineering === null) continue;
      latest.set(value.registerId, value);
      if (!heard.has(entry.device.deviceId)) {
        heard.add(entry.device.deviceId);
        reconcileSoon();
      }
      if (session === null || !born.has(entry.device.deviceId)) continue;
      let entries = waiting.get(entry.device);
      const register = entry.metric.register;
      if (
        entries?.has(register.registerId) !== true &&
        !worthPublishing(last.get(register.registerId), engineering, register.deadband, now, settings.maxIntervalMs)
      ) {
        stats.heldBack += 1;
        continue;
      }
      if (entries === undefined) {
        entries = new Map();
        waiting.set(entry.device, entries);
      }
      entries.set(register.registerId, { metric: entry.metric, value, engineering });
    }
    if (waiting.size > 0 && flushing === null) flushing = setTimeout(flush, 0);
  }

  async function confirm(current: Session): Promise<void> {
    await Promise.race([current.client.unsubscribeAsync(barrierTopic), current.lost]);
  }

  // History: the readings of (historyThrough, births], once each has surely been committed.
  const replayWake = createWakeSignal();
  let byInternalId: Map<number, { device: SparkplugDevice; metric: SparkplugMetric }> | null = null;
  async function replayRound(current: Session, until: number): Promise<void> {
    if (byInternalId === null) {
      const found = new Map<number, { device: SparkplugDevice; metric: SparkplugMetric }>();
      for (const { id, uuid } of await store.registers.allIds()) {
        const entry = metricOf.get(uuid);
        // Text is not kept in the history: string registers have no readings to send.
        if (entry !== undefined && entry.metric.register.dataType !== "string") found.set(id, entry);
      }
      byInternalId = found;
    }
    const upTo = Math.min(until, clock.now() - options.settleMs);
    // Nothing missed (a first start, a rebirth while caught up) needs no device to be known.
    const missed = until > stats.historyThrough;
    const waitForDevices =
      missed &&
      clock.monotonic() - replayBegan < undecidedWaitMs &&
      [...devices.values()].some((device) => undecided(device));
    if (waitForDevices) return;
    if (upTo > stats.historyThrough) {
      stats.historicalSent += await replayHistory(
        {
          readings: store.readings,
          metricOf: byInternalId,
          born: (deviceId) => born.has(deviceId),
          publish: (device, metrics) =>
            publish(current, topic("DDATA", device.name), { timestamp: clock.now(), seq: nextSeq(), metrics }),
          confirm: () => confirm(current),
          moved: (through) => {
            stats.historyThrough = Math.max(stats.historyThrough, through);
          },
          goOn: () => !stopped && session === current,
        },
        stats.historyThrough,
        upTo,
      );
      await save();
    }
    if (upTo >= until && session === current) {
      replayUntil = null;
      stats.replaying = false;
      logger.info({ through: new Date(until).toISOString() }, "Sparkplug history sent");
    }
  }

  /** While connected and caught up: everything handed over a second ago has reached the broker. */
  async function keepUp(current: Session): Promise<void> {
    const handedOver = clock.now() - 1000;
    await confirm(current);
    if (session !== current || replayUntil !== null) return;
    stats.historyThrough = Math.max(stats.historyThrough, handedOver);
    // Written every 10 s (and on a loss or stop): a crash sends at most those seconds' readings again.
    if (clock.monotonic() - lastSaveAt >= 10_000) await save();
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      const current = session;
      if (current !== null) {
        try {
          if (replayUntil !== null) await replayRound(current, replayUntil);
          else await keepUp(current);
          if (replayFailure.ended()) logger.info("Sparkplug history flowing again");
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          if (replayFailure.occurred(message))
            logger.warn({ reason: message }, "Sparkplug history held; sent when possible");
        }
      }
      await replayWake.pause(replayUntil !== null && session !== null ? 200 : 1000);
    }
  }

  function onCommand(current: Session, payload: Buffer): void {
    try {
      const command = decodePayload(payload);
      if (command.metrics.some((metric) => metric.name === rebirthMetric && metric.boolean_value === true)) {
        logger.info("Sparkplug rebirth requested");
        births(current);
      }
      commandFailure.ended();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (commandFailure.occurred(message)) logger.warn({ reason: message }, "Sparkplug NCMD not readable; ignored");
    }
  }

  function deviceDeath(current: Session, device: SparkplugDevice): void {
    born.delete(device.deviceId);
    waiting.delete(device);
    publish(current, topic("DDEATH", device.name), { timestamp: clock.now(), seq: nextSeq(), metrics: [] });
    stats.deviceDeaths += 1;
  }

  /**
   * A reloaded inventory on the same session (Sparkplug 3.0: a device's metric set
   * changes only with a new DBIRTH): a device whose birth would declare other
   * metrics (added, removed or changed registers, a new name) gets DDEATH and, at
   * its next answer, a DBIRTH with the new set and its values; an added device a
   * DBIRTH once it answers; a removed one a DDEATH. The node's own metrics do not
   * change, so neither does its session: no NDEATH or NBIRTH, the bdSeq stays and
   * seq goes on. Unchanged metrics keep their aliases (docs/mqtt.md, "A reload").
   */
  function retarget(registers: ReadonlyMap<string, PublishedRegister>): void {
    // What waits goes out under the metrics it was offered with.
    if (flushing !== null) {
      clearTimeout(flushing);
      flush();
    }
    const aliases = new Map([...metricOf].map(([registerId, entry]) => [registerId, entry.metric.alias]));
    const next = sparkplugDevices(registers, { aliases, highest: highestAlias });
    const current = session;
    for (const [deviceId, before] of devices) {
      const after = next.get(deviceId);
      if (after !== undefined && birthDeclaration(after) === birthDeclaration(before)) continue;
      // Born again once it has answered with the new registers: the DBIRTH declares their values.
      heard.delete(deviceId);
      if (current !== null && born.has(deviceId)) deviceDeath(current, before);
      else born.delete(deviceId);
    }
    for (const registerId of metricOf.keys())
      if (!registers.has(registerId)) {
        latest.delete(registerId);
        last.delete(registerId);
      }
    devices = next;
    indexMetrics();
    byInternalId = null;
    for (const device of devices.values()) {
      if (!gatewayState.has(device.gatewayId))
        gatewayState.set(device.gatewayId, options.gatewayStatus(device.gatewayId));
      if (options.deviceOffline(device.deviceId)) deviceDown.add(device.deviceId);
    }
    reconcileSoon();
  }

  const deathPayload = () => {
    const bytes = encodePayload({ timestamp: clock.now(), metrics: [bdSeqMetric(clock.now())] });
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };

  const link = openLink({
    settings,
    logger: logger.child({ link: "sparkplug" }),
    now: () => clock.now(),
    ...(options.retryMs === undefined ? {} : { retryMs: options.retryMs }),
    identity: {
      clientId: `${settings.clientId}-sparkplug`,
      will: (): NonNullable<IClientOptions["will"]> => {
        if (lastAttemptConnected) {
          stats.bdSeq = (stats.bdSeq + 1) % 256;
          void save();
        }
        lastAttemptConnected = false;
        return { topic: topic("NDEATH"), payload: deathPayload(), qos: 1, retain: false };
      },
      // A clean stop is a death the node announces itself (Sparkplug 3.0, section 7.1).
      farewell: (client) => client.publishAsync(topic("NDEATH"), deathPayload(), { qos: 1, retain: false }),
    },
    onSession(next) {
      lastAttemptConnected = true;
      session = next;
      next.lost.catch(() => {
        if (session !== next) return;
        session = null;
        born.clear();
        waiting.clear();
        void save();
      });
      next.client.on("message", (to, payload) => {
        if (to === ncmdTopic && session === next) onCommand(next, payload);
      });
      next.client.subscribe(ncmdTopic, { qos: 1 });
      births(next);
      replayUntil = clock.now();
      replayBegan = clock.monotonic();
      stats.replaying = true;
      replayWake.wake();
    },
  });
  const running = loop();

  function setGateway(gatewayId: string, status: string): void {
    if (!gatewayState.has(gatewayId) || gatewayState.get(gatewayId) === status) return;
    gatewayState.set(gatewayId, status);
    reconcileSoon();
  }

  return {
    offer,
    gatewayChanged: setGateway,
    modbusDeviceChanged(deviceId: string, status: "online" | "offline"): void {
      const down = status === "offline";
      if (down === deviceDown.has(deviceId)) return;
      if (down) deviceDown.add(deviceId);
      else deviceDown.delete(deviceId);
      reconcileSoon();
    },
    retarget,
    status: link.status,
    stats: (): SparkplugStats => ({ ...stats }),
    async stop(): Promise<void> {
      stopped = true;
      if (flushing !== null) clearTimeout(flushing);
      if (reconciling !== null) clearTimeout(reconciling);
      replayWake.wake();
      await running;
      await link.stop();
      await save();
    },
  };
}
