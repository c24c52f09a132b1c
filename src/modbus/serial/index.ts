/**
 * Modbus RTU over a serial line, under Bun: a modbus-serial client on fieldhub's own
 * serial port (see docs/serial.md).
 */
import ModbusRTU from "modbus-serial";
import { SerialRtuPort } from "./serial-port.ts";
import type { Parity } from "./termios.ts";

export { characterBits, crc16, expectedResponse, interFrameSilenceMs } from "./frame.ts";
export { SerialRtuPort } from "./serial-port.ts";
export { SerialError } from "./termios.ts";

export interface SerialRtuClientOptions {
  path: string;
  baudRate: number;
  dataBits: 7 | 8;
  parity: Parity;
  stopBits: 1 | 2;
  /** How long a request waits for its answer before failing with a timeout. */
  timeoutMs: number;
}

/**
 * Opens the serial port and returns a connected modbus-serial client on it
 * (`client.setID(unit)` then `readHoldingRegisters(...)` etc.).
 *
 * - A Modbus exception answer rejects with an Error carrying `modbusCode`.
 * - No answer rejects with modbus-serial's TransactionTimedOutError after `timeoutMs`.
 * - When the device disappears the client emits 'close' (and 'error' with the reason);
 *   requests then fail at once with PortNotOpenError. Open a new client to resume.
 *   A listener on 'error' is always installed, so an unplugged adapter never takes
 *   the process down.
 */
export async function openSerialRtuClient(options: SerialRtuClientOptions): Promise<ModbusRTU> {
  return (await openSerialRtu(options)).client;
}

/** openSerialRtuClient, with the port under the client (for what only the port can see: `answerBegun()`). */
export async function openSerialRtu(
  options: SerialRtuClientOptions,
): Promise<{ client: ModbusRTU; port: SerialRtuPort }> {
  const { path, baudRate, dataBits, parity, stopBits, timeoutMs } = options;
  const port = new SerialRtuPort({ path, baudRate, dataBits, parity, stopBits });
  const client = new ModbusRTU(port);
  client.setTimeout(timeoutMs);
  // The reason is kept on the port (port.lastError) and re-emitted here; without a
  // listener an 'error' event would throw.
  client.on("error", () => {});
  await new Promise<void>((resolve, reject) => {
    client.open((error: Error | null) => (error ? reject(error) : resolve()));
  });
  return { client, port };
}
