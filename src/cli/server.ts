/** Starts the HTTP server on an open store: shared by `serve` and `demo`. */

import { createHttpApp } from "../http/app.ts";
import type { HealthCheck } from "../http/ops.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import type { MetricsRegistry } from "../lib/metrics.ts";
import type { Store } from "../store/open.ts";
import { CommandError } from "./args.ts";

export interface RunningServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export function startHttpServer(options: {
  store: Store;
  clock: Clock;
  logger: Logger;
  host: string;
  port: number;
  publicUrl: string | null;
  defaultLimitPerMinute: number;
  metrics?: MetricsRegistry;
  healthChecks?: readonly HealthCheck[];
  /** Wakes webhook delivery after an admin change that recorded an event. */
  onEvent?: () => void;
  corsOrigins?: readonly string[];
  logRequests?: boolean;
}): RunningServer {
  const app = createHttpApp(options);
  try {
    // reusePort off: a second fieldhub on the same port must fail, not share it.
    app.listen({ hostname: options.host, port: options.port, reusePort: false });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CommandError(`cannot listen on ${options.host}:${options.port}: ${reason}`);
  }
  const server = app.server;
  if (server === null) throw new CommandError(`cannot listen on ${options.host}:${options.port}`);
  const port = server.port ?? options.port;
  const shownHost = options.host === "0.0.0.0" || options.host === "::" ? "localhost" : options.host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    stop: async () => {
      await app.stop();
    },
  };
}

/** Stops cleanly on SIGINT/SIGTERM: server first, then the store. */
export function stopOnSignals(stop: () => Promise<void>, logger: Logger): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping");
    stop().then(
      () => process.exit(0),
      (error) => {
        logger.error({ err: error }, "stop failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => handler("SIGINT"));
  process.on("SIGTERM", () => handler("SIGTERM"));
}
