/**
 * Which Modbus devices behind an online gateway are offline, from the health the
 * pollers report (docs/webhooks.md, "`modbus_device.offline` and `modbus_device.online`";
 * docs/polling.md, "Failures"). A device is announced offline, once, when all of
 * these hold:
 *
 * - its health is `quarantined` (it was silent `quarantine_after` cycles in a row:
 *   the quarantine is the debounce), or `unreachable` for longer than its gateway's
 *   `heartbeat_s` (its connection is down and not coming back);
 * - its gateway is `online`, and another device of the gateway answers now: a
 *   device that goes down with its gateway (a cut line, a dead gateway, a gateway
 *   with one device) is told by `device.offline`, not once per device.
 *
 * It is announced online on its first answer after that, whatever its gateway does.
 * Whether an offline stands is stored with the event (one transaction), so a
 * restart neither announces a device that was already offline again nor misses the
 * return of one. A change counts only once written; a refused write is tried again
 * at the next report or check (every second).
 */
import type { Clock } from "../lib/clock.ts";
import type { DeviceHealth, DeviceHealthStatus } from "../lib/device-health.ts";
import type { Logger } from "../lib/logger.ts";
import { type ModbusDeviceChange, modbusDeviceStatusEvent } from "../store/contract/event-types.ts";
import type { GatewayStatus } from "../store/contract/gateways.ts";
import type { Store } from "../store/index.ts";

export interface TrackedDevicesOfGateway {
  /** Public gateway id (UUID). */
  id: string;
  heartbeatMs: number;
  devices: readonly { id: string; name: string | null }[];
}

type GatewayState = {
  uuid: string;
  serial: string;
  name: string;
  orgId: number;
  heartbeatMs: number;
  devices: DeviceState[];
};

type DeviceState = {
  id: string;
  name: string | null;
  gateway: GatewayState;
  announcedOffline: boolean;
  health: DeviceHealthStatus;
  /** The health it had while it last answered (`unknown` before its first answer since start). */
  answeringHealth: DeviceHealthStatus;
  /** The health it had while it was last silent (`unknown` when it has not been since start). */
  silentHealth: DeviceHealthStatus;
  /** Monotonic time its silence began; null while it answers. */
  silentSince: number | null;
  lastError: string | null;
  lastAnswerAt: number | null;
  /** The change this process last wrote for the device, and when (Unix ms); null before its first. */
  announced: { change: ModbusDeviceChange; at: number } | null;
};

const answering = (health: DeviceHealthStatus) => health === "ok" || health === "degraded";
const silent = (health: DeviceHealthStatus) => health === "unreachable" || health === "quarantined";

export async function createModbusDeviceStatusTracker(options: {
  /** Only the gateways domain: the device's offline and its event are written there. */
  store: Pick<Store, "gateways">;
  clock: Clock;
  logger: Logger;
  gateways: readonly TrackedDevicesOfGateway[];
  /** The gateway's status as the gateway status tracker has it. */
  gatewayStatus(gatewayId: string): GatewayStatus | null;
  checkEveryMs?: number;
  /** Called after an event was committed (so the webhook dispatcher can send it now). */
  onEvent?: () => void;
  /** Called after each change is written (the offline detector listens). */
  onChange?: (change: ModbusDeviceChange, at: number) => void;
}) {
  const { store, clock, logger } = options;
  const devices = new Map<string, DeviceState>();
  /**
   * Follows these gateways' devices: at start, and after a reload (app/parts.ts). A
   * device tracked already keeps its health and silence; new ones start from the
   * store; devices no longer listed are dropped.
   */
  async function track(gateways: readonly TrackedDevicesOfGateway[]): Promise<void> {
    const announcedOffline = new Set(await store.gateways.offlineAnnouncedDevices());
    const kept = new Map(devices);
    devices.clear();
    for (const tracked of gateways) {
      const row = await store.gateways.statusOf(tracked.id);
      if (row === null) continue;
      const gateway: GatewayState = {
        uuid: tracked.id,
        serial: row.serial,
        name: row.name,
        orgId: row.orgId,
        heartbeatMs: tracked.heartbeatMs,
        devices: [],
      };
      for (const device of tracked.devices) {
        const known = kept.get(device.id);
        const state: DeviceState =
          known === undefined
            ? {
                id: device.id,
                name: device.name,
                gateway,
                announcedOffline: announcedOffline.has(device.id),
                health: "unknown",
                answeringHealth: "unknown",
                silentHealth: "unknown",
                silentSince: null,
                lastError: null,
                lastAnswerAt: null,
                announced: null,
              }
            : Object.assign(known, { name: device.name, gateway });
        gateway.devices.push(state);
        devices.set(device.id, state);
      }
    }
  }
  await track(options.gateways);

  /** The change `state` is due, or null. */
  function due(state: DeviceState): "online" | "offline" | null {
    if (state.announcedOffline) return answering(state.health) ? "online" : null;
    if (!silent(state.health) || state.silentSince === null) return null;
    const debounced =
      state.health === "quarantined" || clock.monotonic() - state.silentSince > state.gateway.heartbeatMs;
    if (!debounced || options.gatewayStatus(state.gateway.uuid) !== "online") return null;
    return state.gateway.devices.some((other) => other !== state && answering(other.health)) ? "offline" : null;
  }

  // Writes run one after another, each deciding on the state the one before left.
  let writes: Promise<void> = Promise.resolve();
  let writeError: string | null = null;
  function settle(state: DeviceState): void {
    if (due(state) === null) return;
    writes = writes.then(() => write(state));
  }

  async function write(state: DeviceState): Promise<void> {
    const next = due(state);
    if (next === null) return;
    const change: ModbusDeviceChange = {
      gateway: { id: state.gateway.uuid, serial: state.gateway.serial, name: state.gateway.name },
      device: { id: state.id, name: state.name },
      status: next,
      health: state.health,
      previousHealth: next === "offline" ? state.answeringHealth : state.silentHealth,
      lastError: state.lastError,
      lastAnswerAt: state.lastAnswerAt,
    };
    const at = clock.now();
    const event = { orgId: state.gateway.orgId, occurredAt: at, ...modbusDeviceStatusEvent(change) };
    try {
      await store.gateways.announceModbusDevice(state.id, next === "offline" ? at : null, event);
    } catch (error) {
      // Not written, so not announced: the next report or check tries again.
      const message = error instanceof Error ? error.message : String(error);
      if (message !== writeError) logger.error({ err: error }, "Modbus device status write failed; will retry");
      writeError = message;
      return;
    }
    writeError = null;
    state.announcedOffline = next === "offline";
    state.announced = { change, at };
    options.onEvent?.();
    options.onChange?.(change, at);
    logger.info(
      {
        gateway: state.gateway.serial,
        device: state.name ?? state.id,
        device_id: state.id,
        status: next,
        health: change.health,
        error: change.lastError,
      },
      "Modbus device status changed",
    );
  }

  /** A device's health status changed (the pollers' PollSink). */
  function healthChanged(deviceId: string, health: DeviceHealth): void {
    const state = devices.get(deviceId);
    if (state === undefined) return;
    const previous = state.health;
    state.health = health.status;
    state.lastError = health.lastError;
    state.lastAnswerAt = health.lastAnswerAt;
    if (answering(health.status)) {
      state.answeringHealth = health.status;
      state.silentSince = null;
    } else if (silent(health.status)) {
      state.silentHealth = health.status;
      if (!silent(previous)) state.silentSince = clock.monotonic();
    }
    // An answer may make another device's silence count: every device of the gateway is looked at.
    for (const device of state.gateway.devices) settle(device);
  }

  /** Devices whose silence has now lasted long enough, or whose gateway came online; runs on a timer. */
  function check(): Promise<void> {
    for (const state of devices.values()) settle(state);
    return writes;
  }

  const timer = setInterval(() => void check(), options.checkEveryMs ?? 1000);
  return {
    healthChanged,
    check,
    track,
    /**
     * Each device of a gateway with its announced state, as its last event told it
     * (a site forwards them to its central: docs/fleet.md, "Forwarding", step 4). An
     * offline that stood before this process started is told with the health seen since.
     */
    announcedStates(gatewayId: string): AnnouncedModbusDevice[] {
      const states: AnnouncedModbusDevice[] = [];
      for (const state of devices.values()) {
        if (state.gateway.uuid !== gatewayId) continue;
        const status = state.announcedOffline ? "offline" : "online";
        const known = state.announced;
        states.push(
          known !== null && known.change.status === status
            ? { ...known.change, changedAt: known.at }
            : {
                device: { id: state.id, name: state.name },
                status,
                health: state.health,
                previousHealth: status === "offline" ? state.answeringHealth : state.silentHealth,
                lastError: state.lastError,
                lastAnswerAt: state.lastAnswerAt,
                changedAt: null,
              },
        );
      }
      return states;
    },
    /** Whether the device's `modbus_device.offline` stands. */
    isOffline: (deviceId: string): boolean => devices.get(deviceId)?.announcedOffline ?? false,
    async stop(): Promise<void> {
      clearInterval(timer);
      await writes;
    },
  };
}
/** A device's announced state: its last change (without its gateway), and when it was written if this process wrote it. */
export type AnnouncedModbusDevice = Omit<ModbusDeviceChange, "gateway"> & { changedAt: number | null };

export type ModbusDeviceStatusTracker = Awaited<ReturnType<typeof createModbusDeviceStatusTracker>>;
