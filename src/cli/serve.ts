/** `fieldhub serve --config FILE --data DIR`: everything in one process. */
import { type Appliance, startAppliance } from "../app/appliance.ts";
import { recordRunningConfig } from "../app/running-config.ts";
import {
  configSnapshot,
  type FieldhubConfig,
  formatLocatedProblems,
  type LocatedProblem,
  readConfigFile,
} from "../config/index.ts";
import { systemClock } from "../lib/clock.ts";
import { createLogger, type Logger } from "../lib/logger.ts";
import { createMetricsRegistry } from "../lib/metrics.ts";
import { SerialTurns } from "../lib/serial-turns.ts";
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
  const read = readConfigFile(configPath);
  const loaded = read.checked;
  if (!loaded.ok) {
    throw new CommandError(
      `${configPath} is not a valid config; nothing was started:\n${formatLocatedProblems(loaded.problems, configPath)}`,
    );
  }
  // A file that was read and checked has its hash.
  if (read.sha256 === null) throw new Error(`${configPath}: read without its hash`);
  const logger = createLogger({ format: logFormat });
  // A SIGHUP during the start would end the process (its default action): it is
  // noted here and answered once the appliance runs.
  let hangupDuringStart = false;
  const noteHangup = () => {
    hangupDuringStart = true;
  };
  process.on("SIGHUP", noteHangup);
  logWarnings(logger, loaded.warnings);
  const sha256 = read.sha256;
  const { appliance, newStore } = await runAppliance(dataDir, logger, async (store) => ({
    appliance: await startAppliance({
      config: loaded.config,
      store,
      clock: systemClock,
      logger,
      metrics: createMetricsRegistry(),
      host: values.host,
      port,
      configSha256: sha256,
    }),
  }));
  recordRunning(dataDir, configPath, loaded.config, appliance, logger);
  logger.info(
    { config: configPath, config_sha256: sha256, config_loaded_at: loadedAt(appliance) },
    `config ${configPath} running (sha256 ${sha256})`,
  );
  const reload = reloadOnHangup(configPath, dataDir, appliance, logger);
  process.off("SIGHUP", noteHangup);
  if (hangupDuringStart) reload();
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

/**
 * SIGHUP (`systemctl reload fieldhub`) reads the config file again and applies it
 * (docs/config.md, "Reloading the config"); one reload at a time, in the order the
 * signals came. A file with problems is refused with each problem logged as
 * `config check` prints it, and the running config stays.
 */
function reloadOnHangup(configPath: string, dataDir: string, appliance: Appliance, logger: Logger): () => void {
  const turns = new SerialTurns((error) => logger.error({ err: error }, "config reload failed"));
  const reload = () => {
    void turns.run(async () => {
      const read = readConfigFile(configPath);
      const checked = read.checked;
      const still = appliance.running().sha256;
      if (!checked.ok || read.sha256 === null) {
        const problems = checked.ok ? [] : checked.problems;
        for (const problem of problems) {
          logger.error(
            { config: configPath, path: problem.path, line: problem.at?.line, column: problem.at?.column },
            `config reload: ${formatLocatedProblems([problem], configPath)}`,
          );
        }
        logger.error(
          { config: configPath, problems: problems.length, config_sha256: still },
          `config reload refused: ${configPath} has ${problems.length} problem${problems.length === 1 ? "" : "s"}; still running config sha256 ${still}`,
        );
        return;
      }
      logWarnings(logger, checked.warnings);
      try {
        await appliance.reload(checked.config, read.sha256);
      } catch (error) {
        logger.error(
          { err: error, config: configPath, config_sha256: still },
          `config reload refused: the store took no writes; still running config sha256 ${still}`,
        );
        return;
      }
      recordRunning(dataDir, configPath, checked.config, appliance, logger);
    });
  };
  process.on("SIGHUP", reload);
  return reload;
}

/** `config check --data` compares against this record (app/running-config.ts); a failed write is logged, never fatal. */
function recordRunning(
  dataDir: string,
  path: string,
  config: FieldhubConfig,
  appliance: Appliance,
  logger: Logger,
): void {
  const { sha256 } = appliance.running();
  if (sha256 === null) return;
  try {
    recordRunningConfig(dataDir, { sha256, loadedAt: loadedAt(appliance), path, config: configSnapshot(config) });
  } catch (error) {
    logger.warn({ err: error }, "the running config could not be recorded in the data directory");
  }
}

function loadedAt(appliance: Appliance): string {
  return new Date(appliance.running().loadedAt).toISOString();
}

function logWarnings(logger: Logger, warnings: readonly LocatedProblem[]): void {
  for (const warning of warnings) {
    logger.warn(
      { path: warning.path, line: warning.at?.line, column: warning.at?.column },
      `config: ${warning.message}`,
    );
  }
}

function isText(part: string | null): part is string {
  return part !== null;
}
