/**
 * YAML syntax errors as a person wants them (docs/config.md, "Problems"): each
 * mistake once, at the line and column where it was made, with that line's text.
 *
 * The parser reports what it could not fit, where it noticed: a key indented one
 * column too deep is reported at the value of the line above it, a dedented key at
 * column 1, an unclosed quote or bracket at the end of the file, and one mistake
 * often brings several errors after it. Each error is moved to the mistake it
 * stands for, and the errors that follow it in the same top-level section (the
 * lines up to the next key in column 1) are dropped as its consequences: fixing
 * the first one is what makes them go away.
 */
import { CST, type LineCounter, Parser, type YAMLError } from "yaml";
import type { LocatedProblem } from "./types.ts";

interface Mistake {
  offset: number;
  line: number;
  column: number;
  message: string;
}

export function yamlSyntaxProblems(
  text: string,
  issues: readonly { kind: string; error: YAMLError }[],
  lineCounter: LineCounter,
): LocatedProblem[] {
  const lines = text.split("\n");
  const mistakes = issues
    .map(({ kind, error }) => ({ kind, ...placeMistake(text, lines, error, lineCounter) }))
    .sort((a, b) => a.offset - b.offset);
  const kept: typeof mistakes = [];
  let sectionEnd = -1;
  for (const mistake of mistakes) {
    if (mistake.line <= sectionEnd) continue;
    kept.push(mistake);
    sectionEnd = lastLineOfSection(lines, mistake.line);
  }
  return kept.map(({ kind, line, column, message }) => ({
    path: "",
    message: `YAML ${kind} at line ${line}, column ${column}: ${message}`,
    at: { line, column, where: "", text: lines[line - 1] ?? "" },
  }));
}

/** Where the mistake behind `error` is, and what to call it. */
function placeMistake(text: string, lines: readonly string[], error: YAMLError, lineCounter: LineCounter): Mistake {
  const offset = error.pos[0] ?? 0;
  const at = (position: number, message: string): Mistake => {
    const { line, col } = lineCounter.linePos(position);
    return { offset: position, line, column: col, message };
  };
  const message = firstLine(error.message);
  const { line } = lineCounter.linePos(offset);
  switch (error.code) {
    case "MISSING_CHAR":
      if (/quote/.test(message)) {
        const opening = unclosedToken(text, offset, (token) => token.type.endsWith("quoted-scalar"));
        if (opening !== null) return at(opening, `${message}: the quoted value that starts here is never closed`);
      }
      if (/without - indicator/.test(message)) {
        return at(
          indentEnd(lineCounter, lines, line),
          "indented less than the keys of the list item above it, and not a new item (no `- `)",
        );
      }
      return at(offset, message);
    case "BAD_INDENT": {
      if (/^Flow (sequence|map)/.test(message)) {
        const opening = unclosedToken(text, offset, (token) => token.type === "flow-collection");
        const closer = /^Flow sequence/.test(message) ? "]" : "}";
        if (opening !== null)
          return at(opening, `the ${closer === "]" ? "[" : "{"} here is never closed with ${closer}`);
      }
      if (/mapping items/.test(message)) {
        return at(
          indentEnd(lineCounter, lines, line),
          "not in the column of the keys above it; keys of one mapping start in the same column",
        );
      }
      return at(indentEnd(lineCounter, lines, line), message);
    }
    case "BLOCK_AS_IMPLICIT_KEY":
    case "MULTILINE_IMPLICIT_KEY": {
      // `name: Acme` followed by a line indented deeper than `name`: the parser
      // reads the deeper line as part of `Acme`; the mistake is that line.
      const endLine = error.linePos?.[1]?.line ?? line;
      const keyColumn = keyColumnOf(lines[line - 1] ?? "");
      for (let next = line + 1; next <= Math.max(endLine, line + 1); next++) {
        const nextText = lines[next - 1] ?? "";
        if (isBlankOrComment(nextText)) continue;
        if (indentOf(nextText) + 1 > keyColumn) {
          return at(
            indentEnd(lineCounter, lines, next),
            `indented deeper than the key on line ${line} (column ${keyColumn}); keys of one mapping start in the same column`,
          );
        }
        break;
      }
      return at(offset, message);
    }
    default:
      return at(offset, message);
  }
}

/** The offset of the first character after line `line`'s indentation (spaces only: a tab is the mistake itself). */
function indentEnd(lineCounter: LineCounter, lines: readonly string[], line: number): number {
  const start = lineCounter.lineStarts[line - 1] ?? 0;
  return start + indentOf(lines[line - 1] ?? "");
}

function indentOf(line: string): number {
  return line.length - line.replace(/^ +/, "").length;
}

/** The column (from 1) of a line's key: after its indentation and any `- ` of a list item. */
function keyColumnOf(line: string): number {
  const item = /^( *)((?:- +)*)/.exec(line);
  return (item?.[1]?.length ?? 0) + (item?.[2]?.length ?? 0) + 1;
}

function isBlankOrComment(line: string): boolean {
  return /^\s*(#.*)?$/.test(line);
}

/** The last line (from 1) of the top-level section that holds `line`: before the next line with a key in column 1. */
function lastLineOfSection(lines: readonly string[], line: number): number {
  for (let next = line + 1; next <= lines.length; next++) {
    const text = lines[next - 1] ?? "";
    if (/^[^\s#-]/.test(text) || text.startsWith("---")) return next - 1;
  }
  return lines.length;
}

/**
 * The start of the last token that `accept`s and reaches `offset` without its
 * closing mark: an unclosed quoted value or flow collection runs on to where the
 * parser gives up, so it is the one that covers the error.
 */
function unclosedToken(text: string, offset: number, accept: (token: CST.Token) => boolean): number | null {
  let found: number | null = null;
  const consider = (token: CST.Token | undefined) => {
    if (token === undefined || !accept(token) || !("offset" in token) || token.offset > offset) return;
    if (token.type === "flow-collection") {
      const closed = token.end.some((end) => end.type === "flow-seq-end" || end.type === "flow-map-end");
      if (!closed) found = Math.max(found ?? -1, token.offset);
      return;
    }
    if ("source" in token && token.offset + token.source.length >= offset) found = Math.max(found ?? -1, token.offset);
  };
  for (const token of new Parser().parse(text)) {
    if (token.type !== "document") continue;
    consider(token.value);
    CST.visit(token, (item) => {
      consider(item.key ?? undefined);
      consider(item.value);
    });
  }
  return found;
}

function firstLine(message: string): string {
  // With prettyErrors off the message is one line; the parser's own locator is dropped.
  return message.split("\n")[0]?.replace(/ at line \d+, column \d+:?$/, "") ?? message;
}
