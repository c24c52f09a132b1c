/**
 * A channel: one connection to the equipment (a Modbus TCP host:port, a serial bus,
 * a serial server) and the queue of turns on its wire (channel-queue.ts). It opens
 * the link when there is work, reopens it with backoff when it is lost (docs/polling.md,
 * "Transports": 1 s doubling up to the bus's `reconnect_max_s`), and counts every
 * transaction in the bus statistics, for the gateway and for the device it went to.
 */
import { LoggedFailure } from "../lib/log-once.ts";
import type { Logger } from "../lib/logger.ts";
import type { BusCounters, DeviceBusCounters } from "./bus-stats.ts";
import { ChannelQueue, type Priority, type QueuedJob } from "./channel-queue.ts";
import {
  describeTarget,
  type LinkOpener,
  type LinkTarget,
  type ModbusLink,
  type ReadOutcome,
  type WriteOutcome,
} from "./link.ts";
import type { PollingDevice, PollingGateway } from "./polling-config.ts";
import { Sleeper } from "./sleeper.ts";

export interface ChannelOptions {
  target: LinkTarget;
  connectTimeoutMs: number;
  openLink: LinkOpener;
  reconnectMaxMs: number;
  counters: BusCounters;
  /** The counters of the devices this channel serves, by unit id (a unit id is one device on a connection). */
  deviceCounters: ReadonlyMap<number, DeviceBusCounters>;
  log: Logger;
  /** The link is open (again). */
  onUp(): void;
  /** The link is lost or cannot be opened; `fatal` when the bus cannot be used at all. */
  onDown(reason: string, fatal: boolean): void;
}

const firstReconnectMs = 1000;
/** Errors that no retry will cure: the bus is not usable as configured. */
const fatalOpenError = /EACCES|permission denied|not a tty|ENOTTY/i;

export class Channel {
  readonly name: string;
  private readonly queue = new ChannelQueue<ModbusLink>();
  private readonly backoff = new Sleeper();
  private readonly connectFailure = new LoggedFailure();
  private link: ModbusLink | null = null;
  /** The link as jobs see it: every transaction counted, a lost connection noticed. */
  private counted: ModbusLink | null = null;
  /** A transaction answered "disconnected": the link is closed and opened again. */
  private lost = false;
  private reconnectMs = firstReconnectMs;

  constructor(private readonly options: ChannelOptions) {
    this.name = describeTarget(options.target);
  }

  /** Queues a turn on this channel's wire (see channel-queue.ts for the order). */
  transact<T>(job: QueuedJob<ModbusLink, T>, priority: Priority): Promise<T> {
    return this.queue.enqueue(job, priority);
  }

  get isClosed(): boolean {
    return this.queue.isClosed;
  }

  /** Serves the queue until `stop()`; the link is closed when it returns. */
  async run(): Promise<void> {
    try {
      await this.queue.serve({ current: () => this.openLink(), prepare: () => this.reopen() });
    } finally {
      this.queue.close();
      await this.link?.close();
    }
  }

  /** Ends any backoff and answers the jobs still waiting `unsent()`; the turn in flight finishes. */
  stop(): void {
    this.backoff.stop();
    this.queue.close();
  }

  /** The link as jobs see it, if it is open and no transaction found it lost. */
  private openLink(): ModbusLink | null {
    return this.link?.isOpen && !this.lost ? this.counted : null;
  }

  /** Closes a lost link and opens a new one, with backoff; false once stopped. */
  private async reopen(): Promise<boolean> {
    const { log, onDown, onUp } = this.options;
    if (this.link !== null) {
      await this.link.close();
      this.link = null;
      if (this.lost) onDown(`${this.name}: connection lost`, false);
    }
    while (!this.backoff.stopped) {
      this.lost = false;
      try {
        this.link = await this.options.openLink(this.options.target, this.options.connectTimeoutMs);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        if (this.connectFailure.occurred("cannot connect")) {
          log.warn({ link: this.name, reason }, "cannot connect; retrying with backoff");
        }
        this.options.counters.connectFailed();
        onDown(`${this.name}: ${reason}`, fatalOpenError.test(reason));
        await this.backoff.sleep(this.reconnectMs);
        this.reconnectMs = Math.min(this.reconnectMs * 2, this.options.reconnectMaxMs);
        continue;
      }
      if (this.connectFailure.ended()) log.info({ link: this.name }, "connection restored");
      this.reconnectMs = firstReconnectMs;
      this.counted = this.countedLink(this.link);
      onUp();
      return true;
    }
    return false;
  }

  private countedLink(link: ModbusLink): ModbusLink {
    const { counters, deviceCounters } = this.options;
    const counted = <T extends ReadOutcome | WriteOutcome>(unitId: number, began: number, outcome: T): T => {
      const roundTripMs = performance.now() - began;
      counters.transaction(outcome, roundTripMs);
      deviceCounters.get(unitId)?.transaction(outcome, roundTripMs);
      if (!outcome.ok && outcome.kind === "disconnected") this.lost = true;
      return outcome;
    };
    const write = link.write?.bind(link);
    return {
      get isOpen() {
        return link.isOpen;
      },
      close: () => link.close(),
      read: (functionCode, unitId, start, count, timeoutMs) => {
        const began = performance.now();
        return link
          .read(functionCode, unitId, start, count, timeoutMs)
          .then((outcome) => counted(unitId, began, outcome));
      },
      write:
        write &&
        ((functionCode, unitId, start, payload, timeoutMs) => {
          const began = performance.now();
          return write(functionCode, unitId, start, payload, timeoutMs).then((outcome) =>
            counted(unitId, began, outcome),
          );
        }),
    };
  }
}

/** The connections a gateway needs, each with the devices it serves. */
export function channelsOf(gateway: PollingGateway): { target: LinkTarget; devices: PollingDevice[] }[] {
  const { bus } = gateway;
  if (gateway.devices.length === 0) return [];
  if (bus.type === "rtu") {
    const target: LinkTarget = {
      kind: "serial",
      path: bus.path,
      baudRate: bus.baud,
      dataBits: bus.dataBits,
      parity: bus.parity,
      stopBits: bus.stopBits,
    };
    return [{ target, devices: gateway.devices }];
  }
  if (bus.type === "rtu_over_tcp") {
    return [{ target: { kind: "rtu_over_tcp", host: bus.host, port: bus.port }, devices: gateway.devices }];
  }
  const byEndpoint = new Map<string, { target: LinkTarget; devices: PollingDevice[] }>();
  for (const device of gateway.devices) {
    const host = device.host ?? "127.0.0.1";
    const port = device.port ?? 502;
    const key = `${host}:${port}`;
    const channel = byEndpoint.get(key) ?? { target: { kind: "tcp", host, port }, devices: [] };
    channel.devices.push(device);
    byEndpoint.set(key, channel);
  }
  return [...byEndpoint.values()];
}
