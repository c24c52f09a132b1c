/** `fieldhub serve --config FILE --data DIR`: everything in one process. */
import { startAppliance } from "../app/appliance.ts";
import { checkConfigFile, formatLocatedProblems } from "../config/index.ts";
import { systemClock } from "../lib/clock.ts";
import { createLogger } from "../lib/logger.ts";
import { createMetricsRegistry } from "../lib/metrics.ts";
import { parseLogFormat, printBanner, runAppliance } from "./appliance-process.ts";
import { CommandError, parseCommandArgs, parsePort, requireOption } from "./args.ts";

export async function serveCommand(argv: string[]): Promise<void> {
  const { values } = parseCommandArgs(argv, {
    config: { type: "string" },
    data: { type: "string" },
    host: { type: "string" },
    port: { type: "string" },
    "log-format": { type: "string" },
  });
  const configPath = requireOption(values.config, "--config");
  const dataDir = requireOption(values.data, "--data");
  const port = values.port === undefined ? undefined : parsePort(values.port, 0);
  const logFormat = parseLogFormat(values["log-format"]);
  const loaded = checkConfigFile(configPath);
  if (!loaded.ok) {
    throw new CommandError(
      `${configPath} is not a valid config; nothing was started:\n${formatLocatedProblems(loaded.problems, configPath)}`,
    );
  }
  const logger = createLogger({ format: logFormat });
  for (const warning of loaded.warnings) {
    logger.warn(
      { path: warning.path, line: warning.at?.line, column: warning.at?.column },
      `config: ${warning.message}`,
    );
  }
  const { appliance, newStore } = await runAppliance(dataDir, logger, async (store) => ({
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
  const { url, setupToken } = appliance;
  const serving = `fieldhub serving on ${url}`;
  logger.info(
    { url, data: dataDir, new_store: newStore !== null },
    `${serving} (API ${url}/v1, docs ${url}/docs)${newStore === null ? "" : `; ${newStore}`}`,
  );
  // The setup token is a credential: in the banner only, never in the log. With
  // JSON logs the banner goes to stderr, and only when it carries the token: the
  // rest of it is the log line above, so journald gets JSON lines alone once an
  // admin account exists.
  const setup =
    setupToken === null
      ? null
      : `no admin account yet: create the owner at ${url}/admin with setup token ${setupToken}, or run \`fieldhub admin set-password --data ${dataDir} --user NAME\``;
  if (logFormat === "pretty" || setup !== null) {
    printBanner(logFormat, [serving, newStore, setup].filter(isText).join("; "));
  }
}

function isText(part: string | null): part is string {
  return part !== null;
}
