/**
 * Simulated Modbus TCP equipment on loopback for the demo: a modbus-serial
 * server whose registers hold plausible values that change with time. Addresses
 * the map does not define answer exception 2 (illegal data address), as a real
 * device does. A holding register or coil that is written keeps the written value
 * from then on (the demo's setpoint can be set from the admin page).
 */
import type { AddressInfo } from "node:net";
import { ServerTCP } from "modbus-serial";
import { encodeWords } from "../modbus/encode.ts";
import type { RegisterDecoding } from "../modbus/register-model.ts";

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
    if (register.functionCode === 1 || register.functionCode === 2)
      bitTables[register.functionCode].set(register.address, register);
    else wordTables[register.functionCode].set(register.address, register);
  }

  /** Written words of holding registers and written coils, by address: they win over the simulated values. */
  const writtenWords = new Map<number, number>();
  const writtenCoils = new Map<number, boolean>();
  /** The holding register whose words cover `address`, or exception 2. */
  function holdingAt(address: number): SimulatedRegister {
    for (let start = address; start >= Math.max(0, address - 3); start--) {
      const register = wordTables[3].get(start);
      if (register !== undefined && start + encodeWords(register, 0).length > address) return register;
    }
    throw new IllegalAddress(`no holding register at ${address}`);
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
    if (table === wordTables[3]) {
      for (let offset = 0; offset < length; offset++)
        words[offset] = writtenWords.get(address + offset) ?? words[offset] ?? 0;
    }
    return words;
  }
  function readBit(table: Map<number, SimulatedRegister>, address: number): boolean {
    const register = table.get(address);
    if (register === undefined) throw new IllegalAddress(`no input at ${address}`);
    const written = table === bitTables[1] ? writtenCoils.get(address) : undefined;
    if (written !== undefined) return written;
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
      setRegister: (address: number, value: number) => {
        holdingAt(address);
        writtenWords.set(address, value);
      },
      setCoil: (address: number, value: boolean) => {
        if (!bitTables[1].has(address)) throw new IllegalAddress(`no coil at ${address}`);
        writtenCoils.set(address, value);
      },
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
