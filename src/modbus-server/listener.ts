/**
 * The server's TCP side: clients outside `allow` and past `max_connections` are
 * closed at once; each connection's bytes are cut into MBAP frames; requests are
 * answered as they complete (a client may have several in flight; the transaction id
 * pairs each answer with its request); a malformed frame closes that connection
 * only; a connection quiet for the idle time is closed. A listener that cannot bind
 * (the port taken by another process) tries again, and polling goes on meanwhile.
 */
import { createServer, type Server, type Socket } from "node:net";
import type { Logger } from "../lib/logger.ts";
import type { Answerer } from "./answering.ts";
import { answerFrame, takeFrames } from "./frames.ts";
import type { ServerStats } from "./stats.ts";

export interface ListenerOptions {
  host: string;
  port: number;
  maxConnections: number;
  admits: (address: string) => boolean;
  answer: Answerer;
  stats: ServerStats;
  logger: Logger;
  /** A connection with no traffic for this long is closed (docs/polling.md: 60 s). */
  idleMs?: number;
  rebindMs?: number;
}

export function startListener(options: ListenerOptions) {
  const { host, port, maxConnections, admits, answer, stats, logger } = options;
  const idleMs = options.idleMs ?? 60_000;
  const rebindMs = options.rebindMs ?? 10_000;
  const sockets = new Set<Socket>();
  let stopped = false;
  let rebind: ReturnType<typeof setTimeout> | undefined;

  const server: Server = createServer((socket) => {
    const client = socket.remoteAddress ?? "";
    if (stopped || !admits(client) || sockets.size >= maxConnections) {
      stats.refused();
      logger.info(
        { client, reason: admits(client) ? "max_connections reached" : "outside allow" },
        "Modbus TCP client refused",
      );
      socket.destroy();
      return;
    }
    sockets.add(socket);
    stats.connected(1);
    socket.setNoDelay(true);
    socket.setTimeout(idleMs);
    let pending: Uint8Array = new Uint8Array(0);
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      socket.destroy();
    };
    socket.on("timeout", close);
    socket.on("error", close);
    socket.on("close", () => {
      closed = true;
      sockets.delete(socket);
      stats.connected(-1);
    });
    socket.on("data", (chunk: Buffer) => {
      if (closed) return;
      const joined = new Uint8Array(pending.length + chunk.length);
      joined.set(pending);
      joined.set(chunk, pending.length);
      const taken = takeFrames(joined);
      if ("malformed" in taken) {
        stats.refused();
        logger.info({ client, reason: taken.malformed }, "malformed Modbus TCP frame; connection closed");
        close();
        return;
      }
      pending = taken.rest;
      for (const frame of taken.frames) {
        answer(frame, client).then(
          (pdu) => {
            if (closed) return;
            if (pdu === "malformed") {
              stats.refused();
              logger.info({ client, unit_id: frame.unitId }, "malformed Modbus request; connection closed");
              close();
              return;
            }
            socket.write(answerFrame(frame, pdu));
          },
          (error: unknown) => {
            logger.error({ err: error, client }, "Modbus TCP request failed; connection closed");
            close();
          },
        );
      }
    });
  });

  server.on("error", (error: NodeJS.ErrnoException) => {
    logger.error({ err: error, host, port }, `Modbus TCP server cannot listen; trying again in ${rebindMs / 1000} s`);
    if (!stopped) rebind = setTimeout(listen, rebindMs);
  });
  const listen = () => {
    if (!stopped) server.listen({ host, port });
  };
  const listening = new Promise<void>((resolve) => server.once("listening", () => resolve()));
  void listening.then(() => logger.info({ host, port }, "Modbus TCP server listening"));
  listen();

  return {
    /** Resolves once the port is bound (for tests and the start-up log). */
    listening,
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(rebind);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
