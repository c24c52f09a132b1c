/**
 * The words (or bits) of each planned read request as the device last sent them,
 * with the monotonic time they were read, per device: what the Modbus TCP server
 * answers from without asking the bus (docs/polling.md, "The Modbus TCP server").
 * Only the poll cycle's own requests are kept, so an address is here exactly when it
 * is in the device's plan (gaps read through included); an entry of a plan that
 * changed (a split, a register set aside) is not removed, it only grows old.
 */
import type { FunctionCode } from "./register-model.ts";

export type ReadData = { words: number[]; bits: null } | { words: null; bits: boolean[] };

type Entry = { functionCode: FunctionCode; start: number; count: number; data: ReadData; at: number };

/** More distinct requests than a plan of 65536 addresses in blocks of 125 would never need. */
const entriesPerDevice = 1024;

export function createReadCache() {
  const devices = new Map<string, Entry[]>();
  return {
    /** A planned request's answer, read at monotonic time `at`. */
    keep(deviceId: string, functionCode: FunctionCode, start: number, data: ReadData, at: number): void {
      const count = data.words?.length ?? data.bits?.length ?? 0;
      let entries = devices.get(deviceId);
      if (entries === undefined) {
        entries = [];
        devices.set(deviceId, entries);
      }
      const same = entries.find(
        (entry) => entry.functionCode === functionCode && entry.start === start && entry.count === count,
      );
      if (same !== undefined) {
        same.data = data;
        same.at = at;
        return;
      }
      if (entries.length >= entriesPerDevice) entries.splice(0, 1);
      entries.push({ functionCode, start, count, data, at });
    },
    /**
     * [start, start + count) of one table, each address from the newest request read at
     * or after `notBefore` that holds it; null when any address has none.
     */
    lookup(
      deviceId: string,
      functionCode: FunctionCode,
      start: number,
      count: number,
      notBefore: number,
    ): ReadData | null {
      const fresh = (devices.get(deviceId) ?? [])
        .filter((entry) => entry.functionCode === functionCode && entry.at >= notBefore)
        .sort((a, b) => b.at - a.at);
      const bits = functionCode <= 2;
      const words: number[] = [];
      const flags: boolean[] = [];
      for (let address = start; address < start + count; address++) {
        const entry = fresh.find(
          (candidate) => address >= candidate.start && address < candidate.start + candidate.count,
        );
        if (entry === undefined) return null;
        const offset = address - entry.start;
        if (bits) flags.push(entry.data.bits?.[offset] ?? false);
        else words.push(entry.data.words?.[offset] ?? 0);
      }
      return bits ? { words: null, bits: flags } : { words, bits: null };
    },
  };
}
export type ReadCache = ReturnType<typeof createReadCache>;
