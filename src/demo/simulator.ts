/**
 * Simulated Modbus TCP equipment on loopback for the demo: a modbus-serial
 * server whose registers hold plausible values that change with time. Addresses
 * the map does not define answer exception 2 (illegal data address), as a real
 * device does.
 */
import type { AddressInfo } from "node:net";
import { ServerTCP } from "modbus-serial";
import type { RegisterDecoding } from "../modbus/register-model.ts";
import { encodeWords } from "../modbus/encode.ts";

export interface SimulatedRegister extends RegisterDecoding {
  /** The raw value (or text) the device holds at time `ts`. */
  valueAt(ts: number): number | string | null;
}

export interface SimulatedDevice {
  port: number;
  stop(): Promise<void>;
}

class IllegalAddress extends Error {
  readonly modbusErrorCode = 2;
}

export async function startSimulatedDevice(options: {
  registers: readonly SimulatedRegister[];
  host?: string;
  port?: number;
  /** The unit id it answers to; other unit ids get no answer at all. Default: every unit id. */
  unitId?: number;
  now?: () => number;
}): Promise<SimulatedDevice> {
  const now = options.now ?? Date.now;
  const wordTables = { 3: new Map<number, SimulatedRegister>(), 4: new Map<number, SimulatedRegister>() };
  const bitTables = { 1: new Map<number, SimulatedRegister>(), 2: new Map<number, SimulatedRegister>() };
  for (const register of options.registers) {
    if (register.functionCode === 1 || register.functionCode === 2) bitTables[register.functionCode].set(register.address, register);
    else wordTables[register.functionCode].set(register.address, register);
  }

  /** The words at [address, address + length) of one table, or exception 2 for an undefined address. */
  function readWords(table: Map<number, SimulatedRegister>, address: number, length: number): number[] {
    const words = new Array<number>(length);
    const ts = now();
    let covered = 0;
    for (let offset = 0; offset < length; offset++) {
      if (offset < covered) continue;
      const register = table.get(address + offset);
      if (register === undefined) throw new IllegalAddress(`no register at ${address + offset}`);
      const encoded = encodeWords(register, register.valueAt(ts) ?? 0);
      encoded.forEach((word, index) => {
        if (offset + index < length) words[offset + index] = word;
      });
      covered = offset + encoded.length;
    }
    return words;
  }
  function readBit(table: Map<number, SimulatedRegister>, address: number): boolean {
    const register = table.get(address);
    if (register === undefined) throw new IllegalAddress(`no input at ${address}`);
    const value = register.valueAt(now());
    return value !== null && value !== 0 && value !== "";
  }

  const server = new ServerTCP(
    {
      getMultipleHoldingRegisters: (address: number, length: number) => readWords(wordTables[3], address, length),
      getMultipleInputRegisters: (address: number, length: number) => readWords(wordTables[4], address, length),
      getHoldingRegister: (address: number) => readWords(wordTables[3], address, 1)[0] ?? 0,
      getInputRegister: (address: number) => readWords(wordTables[4], address, 1)[0] ?? 0,
      getCoil: (address: number) => readBit(bitTables[1], address),
      getDiscreteInput: (address: number) => readBit(bitTables[2], address),
    },
    {
      host: options.host ?? "127.0.0.1",
      // modbus-serial reads `port || 502`, so port 0 (any free port) must be passed as text.
      port: (options.port ?? "0") as number,
      unitID: options.unitId ?? 255,
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once("initialized", () => resolve());
    server.once("serverError", reject);
  });
  const internal = server as unknown as { _server: { address(): AddressInfo } };
  return {
    port: internal._server.address().port,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
