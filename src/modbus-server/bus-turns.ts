/**
 * Reads the server passes to the bus go one at a time per connection of the gateway
 * (the bus on RTU, each host:port on Modbus TCP). The poller's queue serves
 * pass-through turns ahead of polls (modbus/channel-queue.ts); with many queued,
 * clients that keep misses coming would keep a due poll waiting for good. With one at
 * a time, the queue starts a waiting poll as the pass-through turn ends, before the
 * next one is queued, so polling is late by at most one transaction (docs/polling.md,
 * "The Modbus TCP server"). A poll is queued when its timer fires; on a loaded box that
 * timer can run late, after its due time has passed. So a read that waited behind
 * another starts only after the timers already due have run (a zero timeout runs after
 * them): a poll due meanwhile is queued first and goes next. Writes do not wait here:
 * they go ahead of everything.
 */
import type { PollingGateway } from "../modbus/polling-config.ts";

/** Reads waiting for their turn on one connection past this are answered "busy" (exception 6). */
export const mostWaitingPerConnection = 64;

/** Resolves once the timers already due (a late poll's among them) have run. */
const afterDueTimers = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export function createBusTurns(gateway: PollingGateway) {
  const connectionOf = new Map(
    gateway.devices.map((device) => [
      device.id,
      gateway.bus.type === "tcp" ? `${device.host ?? ""}:${device.port ?? 502}` : "bus",
    ]),
  );
  const lines = new Map<string, { last: Promise<void>; waiting: number }>();
  return {
    /** Runs `work` in the device's connection's turn; null when too many wait already. */
    take<T>(deviceId: string, work: () => Promise<T>): Promise<T> | null {
      const key = connectionOf.get(deviceId) ?? deviceId;
      let line = lines.get(key);
      if (line === undefined) {
        line = { last: Promise.resolve(), waiting: 0 };
        lines.set(key, line);
      }
      if (line.waiting >= mostWaitingPerConnection) return null;
      const current = line;
      const behindAnother = current.waiting > 0;
      current.waiting++;
      const turn = (behindAnother ? current.last.then(afterDueTimers) : current.last).then(work);
      current.last = turn.then(
        () => undefined,
        () => undefined,
      );
      return turn.finally(() => {
        current.waiting--;
      });
    },
  };
}
