/** `fieldhub discover`'s command line: what to scan, on which link, and where the result goes (docs/discover.md). */
import type { SerialLine } from "../modbus/discover/pdu-transport.ts";
import { type Probe, probeName, probeNamed } from "../modbus/discover/probe.ts";
import { parseCommandArgs, parsePort, UsageError } from "./args.ts";
import { type CommandHelp, jsonOption } from "./help.ts";

export type DiscoverTarget =
  | { kind: "tcp"; host: string; port: number }
  /** A serial device server: RTU frames over TCP (a config's `rtu_over_tcp` bus). */
  | { kind: "rtu_over_tcp"; host: string; port: number }
  | ({ kind: "serial" } & SerialLine);

export interface DiscoverOptions {
  target: DiscoverTarget;
  units: number[];
  /** The requests a unit is asked in turn until one is answered (docs/discover.md, "How a unit is found"). */
  probes: Probe[];
  timeoutMs: number;
  json: boolean;
  configOut: string | null;
}

export const discoverHelp: CommandHelp = {
  command: "discover",
  arguments:
    "(--host H [--port 502] [--rtu-over-tcp] | --serial DEVICE [--baud 9600] [--parity none|even|odd] [--stop-bits 1|2]) [--units 1-247] [--timeout-ms 300] [--probe hr:0] [--json] [--config-out FILE]",
  summary:
    "Scan unit ids on a Modbus TCP server, an RTU line or a serial device server (RTU over TCP): each unit that answers, its device identification (43/14), its SunSpec models, the shipped template that fits, and a ready devices: entry. Reads only, never writes.",
  options: [
    { flag: "--host H", text: "a Modbus TCP server or gateway" },
    { flag: "--port P", text: "its port (default 502)" },
    {
      flag: "--rtu-over-tcp",
      text: "--host is a serial device server (transparent / raw TCP mode): RTU frames over TCP; the config written has an rtu_over_tcp bus",
    },
    { flag: "--serial DEVICE", text: "an RTU line, e.g. /dev/ttyUSB0" },
    { flag: "--baud N", text: "its baud rate (default 9600)" },
    { flag: "--parity P", text: "none, even or odd (default none)" },
    { flag: "--stop-bits N", text: "1 or 2 (default 1)" },
    {
      flag: "--units LIST",
      text: "unit ids to try, as a range or a list: 1-247 (the default), 1,3,10-20; 0-255 on TCP",
    },
    {
      flag: "--timeout-ms N",
      text: "how long each unit is given to answer (default 300): a silent bus takes at most units x N",
    },
    {
      flag: "--probe LIST",
      text: "what a unit is asked, in turn until it answers: hr:ADDRESS (function 3), ir:ADDRESS (function 4), id (43/14); default hr:0. Each one more costs a silent unit another timeout",
    },
    { ...jsonOption, text: "print one JSON document instead of text" },
    {
      flag: "--config-out FILE",
      text: "write a whole config with a device per unit found (a new file; `fieldhub config check` accepts it) instead of printing the devices: entries",
    },
  ],
  notes:
    "Progress (units tried, found) goes to stderr on a terminal; the worst-case duration is said on stderr first. Exit codes: 0 the scan ran (whether or not a unit answered), 1 the link could not be opened or was lost, or FILE could not be written, 2 a usage error. See docs/discover.md.",
};

/** Baud rates a config's `bus.baud` accepts (docs/config.md), so what is found can be polled as found. */
const baudRates = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200];

export function parseDiscoverOptions(argv: string[]): DiscoverOptions {
  const { values } = parseCommandArgs(argv, {
    host: { type: "string" },
    port: { type: "string" },
    "rtu-over-tcp": { type: "boolean" },
    serial: { type: "string" },
    baud: { type: "string" },
    parity: { type: "string" },
    "stop-bits": { type: "string" },
    units: { type: "string" },
    "timeout-ms": { type: "string" },
    probe: { type: "string" },
    json: { type: "boolean" },
    "config-out": { type: "string" },
  });
  const rtuOverTcp = values["rtu-over-tcp"] === true;
  if (rtuOverTcp && values.serial !== undefined) {
    throw new UsageError(
      "--rtu-over-tcp is for a serial device server at --host H, not --serial (a local serial line is RTU already)",
    );
  }
  if (rtuOverTcp && values.host === undefined) {
    throw new UsageError("--rtu-over-tcp needs --host H: the serial device server's address");
  }
  if ((values.host === undefined) === (values.serial === undefined)) {
    throw new UsageError("give either --host H (Modbus TCP) or --serial DEVICE (Modbus RTU), not both");
  }
  let target: DiscoverTarget;
  if (values.host !== undefined) {
    for (const flag of ["baud", "parity", "stop-bits"] as const) {
      if (values[flag] === undefined) continue;
      throw new UsageError(
        rtuOverTcp
          ? `--${flag} is for a serial line (--serial), not --rtu-over-tcp: a serial device server's line is set in the server`
          : `--${flag} is for a serial line (--serial), not --host`,
      );
    }
    if (values.host === "") throw new UsageError("--host: give a host name or address");
    const port = parsePort(values.port, 502);
    if (port === 0) throw new UsageError("--port: not a port number: 0");
    target = { kind: rtuOverTcp ? "rtu_over_tcp" : "tcp", host: values.host, port };
  } else {
    if (values.port !== undefined) throw new UsageError("--port is for Modbus TCP (--host), not --serial");
    if (values.serial === "") throw new UsageError("--serial: give the serial device, e.g. /dev/ttyUSB0");
    const baud = values.baud === undefined ? 9600 : Number(values.baud);
    if (!baudRates.includes(baud)) throw new UsageError(`--baud: one of ${baudRates.join(", ")}; got ${values.baud}`);
    const parity = values.parity ?? "none";
    if (parity !== "none" && parity !== "even" && parity !== "odd") {
      throw new UsageError(`--parity: even, odd or none; got ${parity}`);
    }
    const stopBits = values["stop-bits"] ?? "1";
    if (stopBits !== "1" && stopBits !== "2") throw new UsageError(`--stop-bits: 1 or 2; got ${stopBits}`);
    target = {
      kind: "serial",
      path: values.serial as string,
      baudRate: baud,
      dataBits: 8,
      parity,
      stopBits: stopBits === "1" ? 1 : 2,
    };
  }
  // Unit ids a config accepts as slave_id: 1..247 on a serial line, direct or through a server (0 is broadcast), 0..255 on TCP.
  const [lowest, highest] = target.kind === "tcp" ? [0, 255] : [1, 247];
  const units = parseUnits(values.units ?? "1-247", lowest, highest);
  const timeoutMs = values["timeout-ms"] === undefined ? 300 : Number(values["timeout-ms"]);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 10 || timeoutMs > 60_000) {
    throw new UsageError(`--timeout-ms: a whole number of milliseconds from 10 to 60000; got ${values["timeout-ms"]}`);
  }
  if (values["config-out"] === "") throw new UsageError("--config-out: give a file name");
  const probes = parseProbes(values.probe ?? "hr:0");
  return { target, units, probes, timeoutMs, json: values.json === true, configOut: values["config-out"] ?? null };
}

/** `1-247`, `3`, `1,5,10-20`: the unit ids in order, each once. */
export function parseUnits(text: string, lowest: number, highest: number): number[] {
  const units = new Set<number>();
  for (const part of text.split(",")) {
    const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/u.exec(part);
    const first = match === null ? Number.NaN : Number(match[1]);
    const last = match?.[2] === undefined ? first : Number(match[2]);
    if (!(first >= lowest && last <= highest && first <= last)) {
      throw new UsageError(
        `--units: unit ids from ${lowest} to ${highest}, as a range or a list (1-247, 1,3,10-20); got ${text}`,
      );
    }
    for (let unit = first; unit <= last; unit++) units.add(unit);
  }
  return [...units].sort((a, b) => a - b);
}

/** `hr:0,hr:40000,id`: the probes in the order given, each once. */
function parseProbes(text: string): Probe[] {
  const probes = new Map<string, Probe>();
  for (const part of text.split(",")) {
    const probe = probeNamed(part.trim());
    if (probe === null) {
      throw new UsageError(
        `--probe: hr:ADDRESS, ir:ADDRESS (0 to 65535) or id, as a list (hr:0,hr:40000); got ${text}`,
      );
    }
    probes.set(probeName(probe), probe);
  }
  return [...probes.values()];
}

/** `1-10` or `1,3,5-9`: the units again, as short as they go. */
export function describeUnits(units: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < units.length; ) {
    let j = i;
    while (j + 1 < units.length && units[j + 1] === units[j]! + 1) j++;
    parts.push(i === j ? `${units[i]}` : `${units[i]}-${units[j]}`);
    i = j + 1;
  }
  return parts.join(",");
}

export function describeDiscoverTarget(target: DiscoverTarget): string {
  if (target.kind === "rtu_over_tcp") return `rtu-over-tcp://${target.host}:${target.port}`;
  return target.kind === "tcp"
    ? `tcp://${target.host}:${target.port}`
    : `${target.path} (${target.baudRate} baud, parity ${target.parity}, ${target.stopBits} stop bit${target.stopBits === 1 ? "" : "s"})`;
}
