/**
 * Problems while they are being collected: the path is kept as segments so it can
 * be located in the YAML source, and is turned into `a.b[2].c` only at the end.
 */
import type { ConfigProblem, LocatedProblem } from "./types.ts";

export type PathSegment = string | number;
export type Path = readonly PathSegment[];

export interface Finding {
  path: Path;
  message: string;
}

const plainKey = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** `["gateways", 2, "bus", "type"]` -> `gateways[2].bus.type`; odd keys are quoted: `server["my key"]`. */
export function formatPath(path: Path): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (plainKey.test(segment)) out += out === "" ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** Orders paths the way they read: segment by segment, list indexes numerically. */
export function comparePaths(a: Path, b: Path): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] as PathSegment;
    const y = b[i] as PathSegment;
    if (x === y) continue;
    if (typeof x === "number" && typeof y === "number") return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * Final list: sorted by where each problem is in the file, one problem per path.
 * A missing field borrows its parent's position, so at one position the fields
 * that are there come first, then the missing ones, each group in path order. Findings are collected structure first, then rules, so when
 * both speak about one field the more basic problem is the one kept.
 */
export function finishProblems(
  findings: Finding[],
  locate: (path: Path) => { offset: number; found: boolean; line: number; column: number; named: string },
): LocatedProblem[] {
  const seen = new Set<string>();
  const unique: {
    finding: Finding;
    text: string;
    offset: number;
    missing: number;
    at: { line: number; column: number; where: string };
  }[] = [];
  for (const finding of findings) {
    const text = formatPath(finding.path);
    if (seen.has(text)) continue;
    seen.add(text);
    const spot = locate(finding.path);
    unique.push({
      finding,
      text,
      offset: spot.offset,
      missing: spot.found ? 0 : 1,
      at: { line: spot.line, column: spot.column, where: spot.named },
    });
  }
  unique.sort((a, b) => a.offset - b.offset || a.missing - b.missing || comparePaths(a.finding.path, b.finding.path));
  return unique.map(({ finding, text, at }) => ({
    path: text,
    message: finding.message,
    at,
  }));
}

/** One line per problem, `<path>: <message>`; a problem about the whole file is just its message. */
export function formatProblems(problems: ConfigProblem[]): string {
  return problems.map(problemLine).join("\n");
}

function problemLine(problem: ConfigProblem): string {
  return problem.path === "" ? problem.message : `${problem.path}: ${problem.message}`;
}

/**
 * As formatProblems, each `<path>: <message>` line followed by an indented line with
 * where it is (docs/config.md): `  fieldhub.yaml:42:9  gateways[0] "GW-1" > devices[0] "boiler" > address`.
 * Lines that start in the first column stay `<path>: <message>`, for scripts.
 */
export function formatLocatedProblems(problems: readonly LocatedProblem[], file?: string): string {
  return problems
    .map((problem) => {
      if (problem.at === undefined) return problemLine(problem);
      const { line, column, where, text } = problem.at;
      const position = file === undefined ? `line ${line}, column ${column}` : `${file}:${line}:${column}`;
      const located = `${problemLine(problem)}\n  ${where === "" ? position : `${position}  ${where}`}`;
      return text === undefined ? located : `${located}\n${snippet(text, column)}`;
    })
    .join("\n");
}

/**
 * The line's text and a caret under `column` (from 1), indented under the
 * location: the tabs before the column are kept, so the caret lines up in a terminal.
 */
function snippet(text: string, column: number): string {
  const before = text.slice(0, column - 1).replace(/[^\t]/g, " ");
  return `    ${text}\n    ${before}^`;
}
