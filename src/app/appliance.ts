/**
 * fieldhub's composition root: the one place that starts the appliance, for
 * `serve` and `demo` alike. From a loaded config and an open store it syncs the
 * inventory, starts the running parts (app/parts.ts) and puts the HTTP door on a
 * socket, with admin changes waking webhook delivery as every other event does.
 */

import { type ConfigDiff, describeChange, diffConfigs, type FieldhubConfig } from "../config/index.ts";
import { createHttpApp, type HttpSettings } from "../http/app.ts";
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
  /** SHA-256 of the config file's bytes (serve): /healthz and the log name the config running by it. */
  configSha256?: string;
}

/** Which config runs: its file's hash and when it was loaded (at start or by the latest reload). */
export interface RunningConfig {
  sha256: string | null;
  loadedAt: number;
}

export interface Appliance {
  url: string;
  port: number;
  /** One-time token for creating the first admin account; null once one exists. For the console, never the log. */
  setupToken: string | null;
  /** The config running now. */
  running(): RunningConfig;
  /**
   * Applies a checked config in place of the running one (docs/config.md, "Reloading
   * the config"): the store's inventory first, then each part the change concerns.
   * Rejects, with the running config left in place, when the store refuses the
   * inventory; the caller logs why.
   */
  reload(next: FieldhubConfig, sha256: string): Promise<ConfigDiff>;
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
  let inventorySync = await startInventorySync(store, clock, logger, config);
  let running: RunningConfig = { sha256: options.configSha256 ?? null, loadedAt: clock.now() };
  const parts = await startParts({
    config,
    store,
    clock,
    logger,
    metrics,
    openLink: options.openLink,
    flushIntervalMs: options.flushIntervalMs,
  });
  // The HTTP door reads these at each request (http/app.ts, HttpSettings): a reload sets them here.
  const httpDeps = {
    store,
    clock,
    logger,
    metrics,
    ...httpSettings(config),
    healthChecks: parts.healthChecks,
    healthDetails: (): Record<string, unknown> => ({
      ...parts.healthDetails(),
      ...(running.sha256 === null
        ? {}
        : { config: { sha256: running.sha256, loaded_at: new Date(running.loadedAt).toISOString() } }),
    }),
    uplinkView: parts.uplinkView,
    mqttView: parts.mqttView,
    deviceHealth: parts.deviceHealth,
    modbusServerView: parts.modbusServerView,
    onEvent: parts.eventRecorded,
    writeRegister: parts.writeRegister,
  };
  const app = await createHttpApp(httpDeps);
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
    running: () => running,
    async reload(next, sha256) {
      const current = parts.config();
      const diff = diffConfigs(current, next);
      // The inventory first: pollers of new registers need their rows. A store that
      // takes no writes refuses the reload; the start-up retry, if it was still
      // trying, goes on with the running config.
      inventorySync.stop();
      try {
        await store.inventory.sync(withHostFacts(next.inventory, hostAddresses(), version), clock.now());
      } catch (error) {
        inventorySync = await startInventorySync(store, clock, logger, current);
        throw error;
      }
      await parts.reload(next, diff);
      Object.assign(httpDeps, httpSettings(next));
      running = { sha256, loadedAt: clock.now() };
      logger.info(
        {
          config_sha256: sha256,
          config_loaded_at: new Date(running.loadedAt).toISOString(),
          changes: diff.changes.map(describeChange),
        },
        `config reloaded: ${diff.changes.length === 0 ? "nothing changed" : `${diff.changes.length} change${diff.changes.length === 1 ? "" : "s"}`}`,
      );
      for (const field of diff.needRestart)
        logger.warn({ field }, `config reload: ${field} changed; it takes effect at the next restart`);
      return diff;
    },
    async stop() {
      inventorySync.stop();
      await server.stop();
      await parts.stop();
    },
  };
}

/** The config's settings the HTTP door reads at each request. */
function httpSettings(config: FieldhubConfig): HttpSettings {
  return {
    publicUrl: config.server.publicUrl,
    defaultLimitPerMinute: config.api.rateLimitPerMinute,
    corsOrigins: config.http.corsOrigins,
    logRequests: requestLogsWanted(config.http.logRequests),
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
