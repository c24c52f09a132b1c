/** `fieldhub serve --config FILE --data DIR`: everything in one process. */
import { startAppliance } from "../app/appliance.ts";
import { checkConfigFile, formatLocatedProblems } from "../config/index.ts";
import { systemClock } from "../lib/clock.ts";
import { createLogger } from "../lib/logger.ts";
import { createMetricsRegistry } from "../lib/metrics.ts";
import { runAppliance } from "./appliance-process.ts";
import { CommandError, parseCommandArgs, parsePort, requireOption } from "./args.ts";

export async function serveCommand(argv: string[]): Promise<void> {
  const { values } = parseCommandArgs(argv, {
    config: { type: "string" },
    data: { type: "string" },
    host: { type: "string" },
    port: { type: "string" },
  });
  const configPath = requireOption(values.config, "--config");
  const dataDir = requireOption(values.data, "--data");
  const port = values.port === undefined ? undefined : parsePort(values.port, 0);
  const loaded = checkConfigFile(configPath);
  if (!loaded.ok) {
    throw new CommandError(
      `${configPath} is not a valid config; nothing was started:\n${formatLocatedProblems(loaded.problems, configPath)}`,
    );
  }
  const logger = createLogger();
  const appliance = await runAppliance(dataDir, logger, async (store) => ({
    appliance: await startAppliance({
      config: loaded.config,
      store,
      clock: systemClock,
      logger,
      metrics: createMetricsRegistry(),
      host: values.host,
      port,
    }),
  }));
  logger.info(
    { url: appliance.url, data: dataDir },
    `fieldhub serving on ${appliance.url} (API ${appliance.url}/v1, docs ${appliance.url}/docs)`,
  );
  // The setup token is a credential: on the console only, never in the log.
  process.stdout.write(
    `fieldhub serving on ${appliance.url}${appliance.setupToken === null ? "" : `; no admin account yet: create the owner at ${appliance.url}/admin with setup token ${appliance.setupToken}, or run \`fieldhub admin set-password --data ${dataDir} --user NAME\``}\n`,
  );
}
