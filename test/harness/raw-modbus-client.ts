/**
 * A raw TCP client for Modbus TCP servers under test: sends bytes no ordinary master
 * would (malformed frames, pipelined requests), from any loopback address, and says
 * what came back and whether the server closed the connection.
 */
import { connect } from "node:net";

export function rawModbusClient(port: number, localAddress = "127.0.0.1") {
  // From an IPv6 address (::1), to the server's IPv6 loopback.
  const socket = connect({ host: localAddress.includes(":") ? "::1" : "127.0.0.1", port, localAddress });
  let received: number[] = [];
  let closed = false;
  socket.on("data", (chunk: Buffer) => {
    received = [...received, ...chunk];
  });
  socket.on("error", () => {});
  const ended = new Promise<void>((resolve) =>
    socket.on("close", () => {
      closed = true;
      resolve();
    }),
  );
  const opened = new Promise<void>((resolve) => socket.on("connect", () => resolve()));
  return {
    socket,
    opened,
    ended,
    isClosed: () => closed,
    /** Everything received and not yet taken. */
    received: () => received,
    /** Waits for `bytes` bytes (or the close, or 3 s) and takes them. */
    async take(bytes: number): Promise<number[]> {
      const deadline = Date.now() + 3000;
      while (received.length < bytes && !closed && Date.now() < deadline) await Bun.sleep(5);
      const taken = received.slice(0, bytes);
      received = received.slice(bytes);
      return taken;
    },
  };
}

/** One Modbus TCP request frame: MBAP header (protocol 0) and the PDU. */
export const modbusFrame = (transactionId: number, unit: number, pdu: number[]) =>
  Uint8Array.of(transactionId >> 8, transactionId & 0xff, 0, 0, 0, pdu.length + 1, unit, ...pdu);
