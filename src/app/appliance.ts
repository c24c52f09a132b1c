/**
 * fieldhub's composition root: the one place that starts the appliance, for
 * `serve` and `demo` alike. From a loaded config and an open store it syncs the
 * inventory, starts the running parts (app/parts.ts) and puts the HTTP door on a
 * socket, with admin changes waking webhook delivery as every other event does.
 */

import type { FieldhubConfig } from "../config/index.ts";
import { createHttpApp } from "../http/app.ts";
import { requestLogsWanted } from "../http/request-log.ts";
import type { Clock } from "../lib/clock.ts";
import { hostAddresses, withHostFacts } from "../lib/host.ts";
import { LoggedFailure } from "../lib/log-once.ts";
import type { Logger } from "../lib/logger.ts";
import { createMetricsRegistry, type MetricsRegistry } from "../lib/metrics.ts";
import { version } from "../lib/version.ts";
import type { LinkOpener } from "../modbus/link.ts";
import type { Store } from "../store/index.ts";
import { listen } from "./http-server.ts";
import { startParts } from "./parts.ts";

export interface ApplianceOptions {
  config: FieldhubConfig;
  /** Open, and this process's alone (see data-dir-lock.ts); the caller closes it after `stop()`. */
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Where /metrics reads from; a fresh registry when absent. */
  metrics?: MetricsRegistry;
  /** Override `server.host` / `server.port` of the config (command-line flags). */
  host?: string;
  port?: number;
  /** How pollers reach their buses (tests put simulated links here). */
  openLink?: LinkOpener;
  flushIntervalMs?: number;
}

export interface Appliance {
  url: string;
  port: number;
  /** One-time token for creating the first admin account; null once one exists. For the console, never the log. */
  setupToken: string | null;
  /** Server first, then the parts; the store stays open. */
  stop(): Promise<void>;
}

/** Throws `ListenError` (with everything it started stopped again) when the address cannot be bound. */
export async function startAppliance(options: ApplianceOptions): Promise<Appliance> {
  const { config, store, clock, logger } = options;
  const metrics = options.metrics ?? createMetricsRegistry();
  let setupToken: string | null = null;
  try {
    setupToken = await store.admin.issueSetupToken(clock.now());
  } catch (error) {
    // A full disk or a held lock: serve reads anyway; a restart issues the token.
    logger.warn({ err: error }, "no setup token this start: the store takes no writes");
  }
  const inventorySync = await startInventorySync(store, clock, logger, config);
  const parts = await startParts({
    config,
    store,
    clock,
    logger,
    metrics,
    openLink: options.openLink,
    flushIntervalMs: options.flushIntervalMs,
  });
  const app = await createHttpApp({
    store,
    clock,
    logger,
    metrics,
    publicUrl: config.server.publicUrl,
    defaultLimitPerMinute: config.api.rateLimitPerMinute,
    corsOrigins: config.http.corsOrigins,
    logRequests: requestLogsWanted(config.http.logRequests),
    healthChecks: parts.healthChecks,
    healthDetails: parts.healthDetails,
    uplinkView: parts.uplinkView,
    mqttView: parts.mqttView,
    deviceHealth: parts.deviceHealth,
    modbusServerView: parts.modbusServerView,
    onEvent: parts.eventRecorded,
    writeRegister: parts.writeRegister,
  });
  let server: ReturnType<typeof listen>;
  try {
    server = listen(app, options.host ?? config.server.host, options.port ?? config.server.port);
  } catch (error) {
    // Nothing is left running when the port is taken.
    await parts.stop();
    throw error;
  }
  return {
    url: server.url,
    port: server.port,
    setupToken,
    async stop() {
      inventorySync.stop();
      await server.stop();
      await parts.stop();
    },
  };
}

/** How often a start-up inventory sync the store refused is tried again. */
const inventorySyncRetryMs = 2_000;

/**
 * Brings the store's inventory in line with the config now, or, when the store
 * takes no writes (full disk, another process's lock), keeps trying on a timer
 * while the appliance serves what the store already holds.
 */
async function startInventorySync(store: Store, clock: Clock, logger: Logger, config: FieldhubConfig) {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const failure = new LoggedFailure();
  let stopped = false;
  // Never rejects: a refused sync is logged and tried again on the timer.
  const attempt = async (): Promise<void> => {
    timer = null;
    try {
      await store.inventory.sync(withHostFacts(config.inventory, hostAddresses(), version), clock.now());
      if (failure.ended()) logger.info("inventory synced with the config");
      return;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (failure.occurred(message))
        logger.error({ err: error }, "inventory sync failed; serving the stored inventory and retrying");
    }
    if (!stopped) timer = setTimeout(() => void attempt(), inventorySyncRetryMs);
  };
  await attempt();
  return {
    stop(): void {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
    },
  };
}
