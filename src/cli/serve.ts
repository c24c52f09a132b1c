/** `fieldhub serve --config FILE --data DIR`: everything in one process. */
import { checkConfigFile, formatLocatedProblems } from "../config/index.ts";
import { systemClock } from "../lib/clock.ts";
import { hostAddresses, withHostFacts } from "../lib/host.ts";
import { requestLogsWanted } from "../http/request-log.ts";
import { createLogger } from "../lib/logger.ts";
import { createMetricsRegistry } from "../lib/metrics.ts";
import { version } from "../lib/version.ts";
import { issueSetupToken } from "../store/admin.ts";
import { syncInventory } from "../store/inventory.ts";
import { openStore } from "../store/open.ts";
import { CommandError, parseCommandArgs, parsePort, requireOption } from "./args.ts";
import type { CommandHelp } from "./help.ts";
import { startRuntime } from "./runtime.ts";
import { startHttpServer, stopOnSignals } from "./server.ts";

export const serveHelp: CommandHelp = {
  command: "serve",
  arguments: "--config FILE --data DIR [--host H] [--port P]",
  summary:
    "Run fieldhub: poll the configured devices, store readings, evaluate alerts, send webhooks, serve the API and admin page.",
  options: [
    { flag: "--config FILE", text: "the config file (YAML; check it first with `fieldhub config check FILE`)" },
    { flag: "--data DIR", text: "data directory; its store (fieldhub.db) is created on the first start" },
    { flag: "--host H", text: "address to listen on (default: the config's server.host, 0.0.0.0)" },
    { flag: "--port P", text: "port to listen on, 0 for any free port (default: the config's server.port, 8080)" },
  ],
  notes:
    "Set FIELDHUB_LOG_REQUESTS=1 (or api.log_requests: true) to log every API request; refusals and errors are always logged.",
};

export async function serveCommand(argv: string[]): Promise<void> {
  const { values } = parseCommandArgs(argv, {
    config: { type: "string" },
    data: { type: "string" },
    host: { type: "string" },
    port: { type: "string" },
  });
  const configPath = requireOption(values.config, "--config");
  const dataDir = requireOption(values.data, "--data");
  const loaded = checkConfigFile(configPath);
  if (!loaded.ok) {
    throw new CommandError(
      `${configPath} is not a valid config; nothing was started:\n${formatLocatedProblems(loaded.problems, configPath)}`,
    );
  }
  const { config } = loaded;
  const logger = createLogger();
  const metrics = createMetricsRegistry();
  const store = openStore(dataDir);
  const setupToken = issueSetupToken(store);
  if (setupToken !== null) {
    logger.warn(
      { setup_token: setupToken },
      "no admin account yet: create the owner with POST /admin/api/setup and this one-time token, or run `fieldhub admin set-password`",
    );
  }
  syncInventory(store, withHostFacts(config.inventory, hostAddresses(), version), systemClock.now());
  const runtime = startRuntime({
    store,
    clock: systemClock,
    logger,
    gateways: config.polling,
    retentionDays: config.retention.readingsDays,
    webhooks: config.webhooks,
    alerting: { rules: config.rules, offlineDetector: config.offlineDetector, automations: config.automations },
    metrics,
  });
  let server: ReturnType<typeof startHttpServer>;
  try {
    server = startHttpServer({
      metrics,
      store,
      clock: systemClock,
      logger,
      host: values.host ?? config.server.host,
      port: parsePort(values.port, config.server.port),
      publicUrl: config.server.publicUrl,
      defaultLimitPerMinute: config.api.rateLimitPerMinute,
      healthChecks: runtime.healthChecks,
      corsOrigins: config.http.corsOrigins,
      logRequests: requestLogsWanted(config.http.logRequests),
    });
  } catch (error) {
    // Cannot listen (port taken): stop what started, so nothing is left running.
    await runtime.stop();
    store.close();
    throw error;
  }
  logger.info(
    { url: server.url, data: dataDir },
    `fieldhub serving on ${server.url} (API ${server.url}/v1, docs ${server.url}/docs)`,
  );
  stopOnSignals(async () => {
    await server.stop();
    await runtime.stop();
    store.close();
  }, logger);
}
