/**
 * What the server asks of its gateway's poller (app/ adapts the poller to it): the
 * words last read, a request on the bus in the poller's own queue, and whether a
 * device is quarantined. The server never opens a connection of its own, so the bus
 * keeps one master and one request at a time (docs/polling.md, "The Modbus TCP server").
 */
import type { ReadOutcome, WriteOutcome, WritePayload } from "../modbus/link.ts";
import type { NotSent } from "../modbus/poller.ts";
import type { ReadData } from "../modbus/read-cache.ts";
import type { FunctionCode, WriteFunctionCode } from "../modbus/register-model.ts";

/** The request never reached the wire (the channel is down or busy past the queue's patience). */
export type { NotSent } from "../modbus/poller.ts";
export type { ReadData } from "../modbus/read-cache.ts";

export interface ServedBus {
  /**
   * The device's words (or bits) at [start, start + count), all from planned
   * requests read at most `maxAgeMs` ago, as the device sent them; null when any
   * address is outside the plan or older.
   */
  cached(deviceId: string, functionCode: FunctionCode, start: number, count: number, maxAgeMs: number): ReadData | null;
  /** One read on the bus, queued ahead of regular polls. */
  read(deviceId: string, functionCode: FunctionCode, start: number, count: number): Promise<ReadOutcome | NotSent>;
  /** One write on the bus, queued ahead of everything else; never retried. */
  write(
    deviceId: string,
    functionCode: WriteFunctionCode,
    start: number,
    payload: WritePayload,
  ): Promise<WriteOutcome | NotSent>;
  /** Quarantined devices are answered exception 11 at once, costing the bus nothing. */
  quarantined(deviceId: string): boolean;
}
