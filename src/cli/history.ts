/**
 * `fieldhub history export|import`: reading history out of and into the store of a
 * data directory, streaming in constant memory, in the formats of
 * docs/history-io.md. Neither takes the data directory's lock: both work beside a
 * running `serve` through SQLite's own locking (docs/architecture.md).
 */
import { existsSync, renameSync, rmSync, statSync } from "node:fs";
import { formatProblems, loadConfigFile } from "../config/index.ts";
import { csvRecordIsOpen, historyDecoder, RowError, type TimePrecision, timePrecisions } from "../history-io/decode.ts";
import { historyEncoder, historyFormats, type RowEncoder } from "../history-io/encode.ts";
import { readLines } from "../history-io/lines.ts";
import { createProgress } from "../history-io/progress.ts";
import { registerLookup } from "../history-io/register-lookup.ts";
import { hostAddresses, withHostFacts } from "../lib/host.ts";
import { effectiveStorageInterval } from "../lib/storage-period.ts";
import { version } from "../lib/version.ts";
import type { ReadingTuple } from "../store/contract/readings.ts";
import type { CatalogRegister } from "../store/contract/registers.ts";
import type { Store } from "../store/index.ts";
import { CommandError, parseCommandArgs, requireDataDir, requireOption, UsageError } from "./args.ts";
import { openCommandStore } from "./command-store.ts";
import { type CommandHelp, dataOption, orgOption } from "./help.ts";
import { parseFormat, parseTimeOption } from "./history-options.ts";

const formats = historyFormats.join("|");
const quietOption = {
  flag: "--quiet",
  text: "no progress on stderr (by default a bar on a terminal, a line every 5 s otherwise)",
};
const formatText = `${formats} (docs/history-io.md)`;

export const historyHelp: readonly CommandHelp[] = [
  {
    command: "history export",
    arguments: `--data DIR [--org ORG] [--gateway SERIAL]... [--register ID]... [--since T] [--until T] [--format ${formats}] [--out FILE] [--quiet]`,
    summary: "Write stored readings in time order, with no window limit, streaming in constant memory.",
    options: [
      dataOption,
      { ...orgOption, text: "only this organisation's registers" },
      { flag: "--gateway SERIAL", text: "only this gateway's registers (repeatable)" },
      { flag: "--register ID", text: "only this register (repeatable)" },
      { flag: "--since T", text: "from this RFC 3339 time, inclusive (default: the oldest reading)" },
      { flag: "--until T", text: "up to this RFC 3339 time, exclusive (default: now)" },
      { flag: "--format F", text: `${formatText}; default ndjson` },
      {
        flag: "--out FILE",
        text: "write here (whole or not at all: written beside it, renamed at the end); default stdout",
      },
      quietOption,
    ],
  },
  {
    command: "history import",
    arguments: `--data DIR --format ${formats} [--precision s|ms|ns] [--on-error stop|skip] [--config FILE] [--quiet] [FILE|-]`,
    summary:
      "Store readings from a file or stdin; errors name the line; importing the same rows again stores nothing; at most one reading per register per storage period.",
    options: [
      { ...dataOption, text: `${dataOption.text} (with --config it may be new)` },
      { flag: "--format F", text: formatText },
      { flag: "--precision P", text: "unit of numeric times: s (default), ms or ns" },
      {
        flag: "--on-error E",
        text: "stop (default: nothing after the last committed batch) or skip (counted and summarised)",
      },
      { flag: "--config FILE", text: "sync this config's inventory first, as serve does (to import into a new store)" },
      quietOption,
    ],
  },
];

export async function historyCommand(argv: string[]): Promise<void> {
  const [action, ...rest] = argv;
  switch (action) {
    case "export":
      return exportHistory(rest);
    case "import":
      return importHistory(rest);
    default:
      throw new UsageError(action === undefined ? "history needs an action" : `unknown history action "${action}"`);
  }
}

/**
 * Output to a file appears whole or not at all: written beside it, renamed at the
 * end. A device or pipe (/dev/null, a fifo) is written directly.
 */
function openOutput(out: string | undefined) {
  if (out === undefined || out === "-") {
    return { writer: Bun.stdout.writer(), commit() {}, abandon() {} };
  }
  if (existsSync(out) && !statSync(out).isFile()) {
    return { writer: Bun.file(out).writer({ highWaterMark: 1 << 20 }), commit() {}, abandon() {} };
  }
  const partial = `${out}.partial-${process.pid}`;
  return {
    writer: Bun.file(partial).writer({ highWaterMark: 1 << 20 }),
    commit: () => renameSync(partial, out),
    abandon: () => rmSync(partial, { force: true }),
  };
}

function pickRegisters(
  catalog: CatalogRegister[],
  filter: { org?: string; gateways: string[]; registers: string[] },
): CatalogRegister[] {
  let chosen = catalog;
  if (filter.org !== undefined) {
    const org = filter.org;
    chosen = chosen.filter((register) => register.orgKey === org);
    if (chosen.length === 0 && !catalog.some((register) => register.orgKey === org)) {
      throw new CommandError(`no organisation "${org}" with registers in this store`);
    }
  }
  if (filter.gateways.length > 0) {
    const serials = new Set(filter.gateways);
    const unknown = filter.gateways.filter((serial) => !chosen.some((register) => register.gatewaySerial === serial));
    if (unknown.length > 0)
      throw new CommandError(`no registers of a gateway with serial ${unknown.join(", ")} in this store`);
    chosen = chosen.filter((register) => serials.has(register.gatewaySerial));
  }
  if (filter.registers.length > 0) {
    const ids = new Set(filter.registers.map((id) => id.toLowerCase()));
    const unknown = [...ids].filter((id) => !chosen.some((register) => register.uuid === id));
    if (unknown.length > 0) throw new CommandError(`no register ${unknown.join(", ")} in this selection`);
    chosen = chosen.filter((register) => ids.has(register.uuid));
  }
  return chosen;
}

async function exportHistory(argv: string[]): Promise<void> {
  const { values } = parseCommandArgs(argv, {
    data: { type: "string" },
    org: { type: "string" },
    gateway: { type: "string", multiple: true },
    register: { type: "string", multiple: true },
    since: { type: "string" },
    until: { type: "string" },
    format: { type: "string" },
    out: { type: "string" },
    quiet: { type: "boolean" },
  });
  const dataDir = requireDataDir(values.data);
  const format = parseFormat(values.format, "ndjson");
  // docs/api.md section 4.6 window rules: since inclusive, until exclusive, until defaults to
  // now; no window limit here, and since defaults to the beginning of history.
  const until = parseTimeOption(values.until, "--until") ?? Date.now();
  const since = parseTimeOption(values.since, "--since") ?? 0;
  if (since >= until) throw new UsageError("--since must be before --until");
  const store = await openCommandStore(dataDir);
  const output = openOutput(values.out);
  try {
    const registers = pickRegisters(await store.registers.catalog(), {
      org: values.org,
      gateways: values.gateway ?? [],
      registers: values.register ?? [],
    });
    const encoder = historyEncoder(format);
    const byId = new Map(registers.map((register) => [register.id, register]));
    const rowEncoders = new Map<number, RowEncoder>();
    const progress = createProgress({ label: "rows exported", quiet: values.quiet === true });
    let rows = 0;
    let omitted = 0;
    if (encoder.header !== "") output.writer.write(encoder.header);
    for await (const page of store.readings.scan({ registerIds: [...byId.keys()], since, until })) {
      let text = "";
      for (const row of page) {
        let encode = rowEncoders.get(row.registerId);
        if (encode === undefined) {
          const register = byId.get(row.registerId);
          if (register === undefined) continue;
          encode = encoder.forRegister(register);
          rowEncoders.set(row.registerId, encode);
        }
        const line = encode(row.ts, row.rawValue, row.aggregate ?? null);
        if (line === null) omitted++;
        else text += line;
      }
      rows += page.length;
      output.writer.write(text);
      await output.writer.flush();
      const last = page[page.length - 1];
      progress.update(rows, last === undefined ? null : (last.ts - since) / (until - since));
    }
    await output.writer.end();
    output.commit();
    const note = omitted > 0 ? `; ${omitted} without a value left out (line protocol has no null)` : "";
    progress.done(`exported ${rows - omitted} readings of ${byId.size} registers${note}`);
  } catch (error) {
    output.abandon();
    throw error;
  } finally {
    await store.close();
  }
}

/**
 * Readings per transaction. New readings append to the history tail (its last pages),
 * so a batch's size no longer decides the pages written; a small batch keeps the
 * garbage between the full collections after each commit, and so the peak memory, low
 * (docs/benchmarks.md, "History export, import and mirror").
 */
const importBatchRows = 20_000;
/** With --on-error skip, this many errors are printed; the rest only counted. */
const printedErrors = 10;

async function syncConfig(store: Store, configPath: string): Promise<void> {
  const loaded = loadConfigFile(configPath);
  if (!loaded.ok) {
    throw new CommandError(
      `${configPath} is not a valid config; nothing was imported:\n${formatProblems(loaded.problems)}`,
    );
  }
  await store.inventory.sync(withHostFacts(loaded.config.inventory, hostAddresses(), version), Date.now());
}

async function importHistory(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    argv,
    {
      data: { type: "string" },
      format: { type: "string" },
      precision: { type: "string" },
      "on-error": { type: "string" },
      config: { type: "string" },
      quiet: { type: "boolean" },
    },
    true,
  );
  const format = parseFormat(values.format);
  const precision = (values.precision ?? "s") as TimePrecision;
  if (!timePrecisions.includes(precision)) throw new UsageError(`--precision: one of s, ms, ns, not ${precision}`);
  const onError = values["on-error"] ?? "stop";
  if (onError !== "stop" && onError !== "skip") throw new UsageError(`--on-error: stop or skip, not ${onError}`);
  if (positionals.length > 1) throw new UsageError("import reads one file (or - for standard input)");
  const path = positionals[0] ?? "-";
  // With --config the store may be new (the config brings its inventory); without, it must exist.
  const dataDir = values.config === undefined ? requireDataDir(values.data) : requireOption(values.data, "--data");
  let size: number | null = null;
  if (path !== "-") {
    try {
      const stat = statSync(path);
      size = stat.isFile() ? stat.size : null;
    } catch {
      throw new CommandError(`cannot read ${path}`);
    }
  }

  const store = await openCommandStore(dataDir);
  try {
    if (values.config !== undefined) await syncConfig(store, values.config);
    const catalog = await store.registers.catalog();
    const lookup = registerLookup(catalog);
    const periods = new Map(
      catalog.map((register) => [register.id, effectiveStorageInterval(register.storageIntervalMs)]),
    );
    const decode = historyDecoder(format, precision);
    const progress = createProgress({ label: "rows read", quiet: values.quiet === true });
    const counts = { read: 0, stored: 0, skipped: 0, errors: 0 };
    let batch: ReadingTuple[] = [];
    let lineNumber = 0;
    let committedThrough = 0;
    let firstError: string | null = null;

    const commit = async () => {
      const result = await store.readings.importReadings(batch, periods);
      counts.stored += result.stored;
      counts.skipped += result.skipped;
      // Periods the import has moved past are closed into blocks now, as serve's
      // minutely job would: the open part (held in memory too) stays about a period.
      let newest = Number.NEGATIVE_INFINITY;
      for (const row of batch) if (row[1] > newest) newest = row[1];
      if (batch.length > 0) await store.readings.closePeriods(Math.min(newest, Date.now()));
      batch = [];
      committedThrough = lineNumber;
      // A batch leaves a few hundred thousand short-lived objects; collecting them now
      // (a few ms per 100,000 rows) keeps the heap, and so the import's memory, flat.
      Bun.gc(true);
    };
    const fail = (line: number, message: string) => {
      if (onError === "stop") {
        throw new CommandError(
          `line ${line}: ${message}. Stopped: ${counts.stored} readings stored${committedThrough > 0 ? ` (from lines 1 to ${committedThrough})` : ""}, nothing after.`,
        );
      }
      counts.errors++;
      firstError ??= `line ${line}: ${message}`;
      if (counts.errors <= printedErrors && values.quiet !== true)
        process.stderr.write(`line ${line}: ${message} (skipped)\n`);
    };

    let open = "";
    let openSince = 0;
    for (const chunk of readLines(path)) {
      for (const line of chunk.lines) {
        lineNumber++;
        let record = line;
        let recordLine = lineNumber;
        if (format === "csv") {
          // A quoted field may hold line breaks (RFC 4180): the record goes on.
          if (open !== "") {
            record = `${open}\n${line}`;
            recordLine = openSince;
          }
          if (csvRecordIsOpen(record)) {
            if (open === "") openSince = lineNumber;
            open = record;
            continue;
          }
          open = "";
        }
        try {
          const row = decode(record);
          if (row === null) continue;
          batch.push([lookup(row), row.ts, row.rawValue, row.aggregate]);
          counts.read++;
        } catch (error) {
          if (!(error instanceof RowError)) throw error;
          fail(recordLine, error.message);
        }
        if (batch.length >= importBatchRows) await commit();
      }
      progress.update(counts.read, size === null || size === 0 ? null : chunk.bytes / size);
    }
    if (open !== "") fail(openSince, "unterminated quoted field");
    await commit();
    const errors = counts.errors > 0 ? `; ${counts.errors} rows with errors skipped (first: ${firstError})` : "";
    progress.done(
      `imported ${counts.read} rows: ${counts.stored} stored, ${counts.skipped} skipped as already stored or within an occupied storage period${errors}`,
    );
  } finally {
    await store.close();
  }
}
