/** Options `history export|import` and `mirror` share; kept apart so `mirror` loads neither the config nor the store. */
import { type HistoryFormat, historyFormats, isHistoryFormat } from "../history-io/encode.ts";
import { parseRfc3339 } from "../lib/timestamps.ts";
import { requireOption, UsageError } from "./args.ts";

export function parseFormat(text: string | undefined, fallback?: HistoryFormat): HistoryFormat {
  if (text === undefined && fallback !== undefined) return fallback;
  const format = requireOption(text, "--format");
  if (!isHistoryFormat(format)) throw new UsageError(`--format: one of ${historyFormats.join(", ")}, not ${format}`);
  return format;
}

export function parseTimeOption(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseRfc3339(text);
  if (ms === null) throw new UsageError(`${flag}: not an RFC 3339 date-time: ${text}`);
  return ms;
}
