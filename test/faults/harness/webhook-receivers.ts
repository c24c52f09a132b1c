/** Webhook receivers on loopback: one that records every delivery, one that verifies each (slowly, if asked), one that never answers. */
import { Webhook } from "standardwebhooks";

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

export interface Arrival {
  at: number;
  id: string;
  /** The verified payload's event type and data. */
  type: string;
  data: Record<string, unknown>;
}

/**
 * A receiver as an integrator writes one: each delivery verified with
 * `standardwebhooks` against the endpoint's secret (set once the endpoint exists),
 * its webhook-id recorded on arrival, then answered 204 after `delayMs` (a slow
 * receiver keeps a burst in flight). A delivery that does not verify is counted
 * and answered 400.
 */
export function startVerifyingReceiver(options: { delayMs?: number } = {}) {
  const arrivals: Arrival[] = [];
  let webhook: Webhook | null = null;
  let invalid = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = await request.text();
      let payload: { type: string; data: Record<string, unknown> };
      try {
        if (webhook === null) throw new Error("no secret yet");
        payload = webhook.verify(body, Object.fromEntries(request.headers.entries())) as typeof payload;
      } catch {
        invalid++;
        return new Response(null, { status: 400 });
      }
      arrivals.push({
        at: Date.now(),
        id: request.headers.get("webhook-id") ?? "",
        type: payload.type,
        data: payload.data,
      });
      if (options.delayMs !== undefined) await Bun.sleep(options.delayMs);
      return new Response(null, { status: 204 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/hook`,
    arrivals,
    invalid: () => invalid,
    useSecret(secret: string): void {
      webhook = new Webhook(secret);
    },
    stop: () => server.stop(true),
  };
}
