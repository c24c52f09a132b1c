/**
 * The help of the long-running commands, apart from their code: `serve` and `demo`
 * load the whole appliance (HTTP, Modbus, webhooks; about 0.1 s from source), which
 * the other commands and `--help` should not pay for (src/cli/commands.ts imports
 * them only when they run).
 */
import type { CommandHelp, OptionHelp } from "./help.ts";

const logFormatHelp: OptionHelp = {
  flag: "--log-format F",
  text: "json: JSON lines on stdout, the banner on stderr; pretty: lines for a person (default: pretty on a terminal, else json)",
};

export const serveHelp: CommandHelp = {
  command: "serve",
  arguments: "--config FILE --data DIR [--host H] [--port P] [--log-format json|pretty]",
  summary:
    "Run fieldhub: poll the configured devices, store readings, evaluate alerts, send webhooks, serve the API and admin page. SIGHUP (systemctl reload) reads the config again and applies it without a restart; SIGINT/SIGTERM stop.",
  options: [
    { flag: "--config FILE", text: "the config file (YAML; check it first with `fieldhub config check FILE`)" },
    {
      flag: "--data DIR",
      text: "data directory; its store (fieldhub.db) is created on the first start, the directory only inside one that exists",
    },
    { flag: "--host H", text: "address to listen on (default: the config's server.host, 0.0.0.0)" },
    { flag: "--port P", text: "port to listen on, 0 for any free port (default: the config's server.port, 8080)" },
    logFormatHelp,
  ],
  notes:
    "Set FIELDHUB_LOG_REQUESTS=1 (or api.log_requests: true) to log every API request; refusals and errors are always logged.",
};

export const demoHelp: CommandHelp = {
  command: "demo",
  arguments: "[--port P] [--host H] [--data DIR] [--days N] [--log-format json|pretty]",
  summary: "Run a demo organisation with simulated equipment, backfilled history, alerts and the sandbox API key.",
  options: [
    { flag: "--port P", text: "port to listen on, 0 for any free port (default 8080)" },
    { flag: "--host H", text: "address to listen on (default 127.0.0.1)" },
    {
      flag: "--data DIR",
      text: "data directory for the demo's store (default: $XDG_STATE_HOME/fieldhub-demo or ~/.local/state/fieldhub-demo)",
    },
    { flag: "--days N", text: "days of history to backfill, 1 to 400 (default 7)" },
    logFormatHelp,
  ],
  notes: "Set FIELDHUB_LOG_REQUESTS=1 to log every API request; refusals and errors are always logged.",
};
