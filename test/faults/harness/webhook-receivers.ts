/** Webhook receivers on loopback: one that records every delivery, one that accepts and never answers. */

export interface Delivery {
  at: number;
  id: string;
  type: string;
  body: Record<string, unknown>;
}

export function startRecordingReceiver() {
  const deliveries: Delivery[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = (await request.json()) as Record<string, unknown>;
      deliveries.push({ at: Date.now(), id: String(body.id), type: String(body.type), body });
      return new Response(null, { status: 204 });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/hook`, deliveries, stop: () => server.stop(true) };
}

/** Accepts TCP connections and reads what is sent, never writing a byte back. */
export function startSilentReceiver() {
  let connections = 0;
  const listener = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open() {
        connections++;
      },
      data() {},
    },
  });
  return {
    url: `http://127.0.0.1:${listener.port}/hook`,
    connections: () => connections,
    stop: () => listener.stop(true),
  };
}
