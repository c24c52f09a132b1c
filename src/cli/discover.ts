/**
 * `fieldhub discover`: scans unit ids on a Modbus TCP server or an RTU line and says
 * what answers, who it says it is (43/14), its SunSpec models and the shipped template
 * that fits, with a ready `devices:` entry for each (docs/discover.md). Read-only: it
 * sends reads and 43/14 requests, never a write.
 */
import { existsSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { checkConfig, formatProblems } from "../config/index.ts";
import { openRtuPduTransport, openTcpPduTransport, type PduTransport } from "../modbus/discover/pdu-transport.ts";
import { probeName } from "../modbus/discover/probe.ts";
import { openRtuOverTcpPduTransport } from "../modbus/discover/rtu-over-tcp-transport.ts";
import { LinkLostError, type ScanResult, scanUnits } from "../modbus/discover/scan.ts";
import { readSunSpec, type SunSpecFound } from "../modbus/discover/sunspec-probe.ts";
import { CommandError } from "./args.ts";
import {
  type DiscoverOptions,
  describeDiscoverTarget,
  describeUnits,
  parseDiscoverOptions,
} from "./discover-options.ts";
import { describeFound, devicesYaml, discoveredConfigYaml, discoveryJson, discoveryText } from "./discover-report.ts";

export async function discoverCommand(argv: string[]): Promise<void> {
  const options = parseDiscoverOptions(argv);
  if (options.configOut !== null) checkConfigOut(options.configOut);
  const { target, units, probes, timeoutMs } = options;
  const open = (): Promise<PduTransport> => {
    if (target.kind === "serial") return openRtuPduTransport(target);
    const connect = target.kind === "tcp" ? openTcpPduTransport : openRtuOverTcpPduTransport;
    return connect(target.host, target.port, Math.max(3000, timeoutMs));
  };
  let link: PduTransport;
  try {
    link = await open();
  } catch (error) {
    throw new CommandError((error as Error).message);
  }
  const worstCase = units.length * probes.length * timeoutMs;
  const perUnit = probes.length === 1 ? "" : ` x ${probes.length} probes (${probes.map(probeName).join(", ")})`;
  process.stderr.write(
    `scanning ${units.length} unit id${units.length === 1 ? "" : "s"} (${describeUnits(units)}) on ${describeDiscoverTarget(target)}: at most ${units.length}${perUnit} x ${timeoutMs} ms = ${(worstCase / 1000).toFixed(1)} s on a silent bus (each unit that answers adds a few requests)\n`,
  );
  const progress = progressLine(units.length);
  const started = performance.now();
  let result: ScanResult<SunSpecFound>;
  try {
    result = await scanUnits(link, {
      units,
      timeoutMs,
      probes,
      onProgress: progress.update,
      reopen: target.kind === "serial" ? undefined : async () => (link = await open()),
      sunspec: readSunSpec,
    });
  } catch (error) {
    if (error instanceof LinkLostError) {
      throw new CommandError(`lost ${describeDiscoverTarget(target)} during the scan: ${error.message}`);
    }
    throw error;
  } finally {
    progress.end();
    await link.close();
  }
  const elapsedMs = performance.now() - started;
  const found = describeFound(result.found, target);
  if (options.configOut !== null && found.length > 0)
    writeConfig(options, discoveredConfigYaml(found, target, new Date()));
  const configOut = options.configOut !== null && found.length > 0 ? options.configOut : null;
  if (options.json) {
    process.stdout.write(
      `${discoveryJson(result, found, { target, unitIds: units, probes, timeoutMs, elapsedMs, configOut })}\n`,
    );
    return;
  }
  process.stdout.write(discoveryText(result, found, elapsedMs));
  if (configOut !== null) process.stdout.write(`config written to ${configOut}\n`);
  else if (options.configOut !== null) process.stdout.write(`no unit answered: ${options.configOut} not written\n`);
  else if (found.length > 0) process.stdout.write(`\n${devicesYaml(found)}`);
}

/** Refused before the scan rather than after it: an existing file (a config is never overwritten), a missing directory. */
function checkConfigOut(file: string): void {
  if (existsSync(file))
    throw new CommandError(`--config-out ${file}: the file exists; discover writes a new file only`);
  const directory = dirname(file);
  if (!existsSync(directory) || !statSync(directory).isDirectory()) {
    throw new CommandError(`--config-out ${file}: no directory ${directory}`);
  }
}

/** Whole or nothing: a temporary file renamed into place, once the config passes the checks `config check` makes. */
function writeConfig(options: DiscoverOptions, yaml: string): void {
  const file = options.configOut as string;
  const checked = checkConfig(yaml);
  if (!checked.ok) {
    throw new CommandError(
      `the config for ${file} does not pass its checks:\n${formatProblems(checked.problems)}\n${yaml}`,
    );
  }
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, yaml, { flag: "wx" });
    renameSync(temporary, file);
  } catch (error) {
    throw new CommandError(`--config-out ${file}: ${(error as Error).message}`);
  }
}

/** Units tried and found, rewritten in place on a terminal; nothing otherwise. */
function progressLine(total: number) {
  const tty = process.stderr.isTTY === true;
  let shown = false;
  return {
    update(tried: number, found: number): void {
      if (!tty) return;
      process.stderr.write(`\r${tried}/${total} units tried, ${found} found`);
      shown = true;
    },
    end(): void {
      if (shown) process.stderr.write("\n");
    },
  };
}
