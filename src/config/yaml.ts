/**
 * YAML text -> plain data, plus a way to find where a path sits in the text so
 * problems can be listed in file order.
 */
import { type Document, isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument } from "yaml";
import type { Path } from "./problems.ts";
import { formatPath } from "./problems.ts";
import type { LocatedProblem } from "./types.ts";
import { yamlSyntaxProblems } from "./yaml-syntax.ts";

export type YamlReadResult =
  | {
      ok: true;
      data: unknown;
      /** Paths (formatted) of keys written with an empty value, which are treated as absent. */
      emptied: ReadonlySet<string>;
      /** Where a path is in the text, for listing problems in file order. */
      locate: (path: Path) => SourceSpot;
    }
  | { ok: false; problems: LocatedProblem[] };

/**
 * `offset` is where the deepest existing node on the path starts; `found` says the
 * whole path exists (false for a missing field, which borrows its parent's offset).
 * `line` and `column` (from 1) are that offset in the text; `named` is the path with
 * each list item's name: `gateways[0] "GW-1" > devices[0] "boiler" > address`.
 */
export interface SourceSpot {
  offset: number;
  found: boolean;
  line: number;
  column: number;
  named: string;
}

export function readYaml(text: string): YamlReadResult {
  const lineCounter = new LineCounter();
  // `merge` lets a file share register lists with anchors and `<<:`, a common YAML habit.
  const doc = parseDocument(text, {
    lineCounter,
    prettyErrors: false,
    merge: true,
    uniqueKeys: true,
  });
  // Warnings too (an unknown tag, say): a value YAML could not read as written must not pass.
  const issues = [
    ...doc.errors.map((error) => ({ kind: "syntax error", error })),
    ...doc.warnings.map((error) => ({ kind: "warning", error })),
  ];
  if (issues.length > 0) {
    // Stop here: the structure YAML recovers from broken text would only add confusing problems.
    return { ok: false, problems: yamlSyntaxProblems(text, issues, lineCounter) };
  }

  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // Unresolvable aliases and alias bombs surface only here.
    return {
      ok: false,
      problems: [{ path: "", message: `YAML error: ${(error as Error).message}` }],
    };
  }
  const emptied = new Set<string>();
  try {
    data = dropEmptyValues(data, [], emptied, new Set());
  } catch (error) {
    if (!(error instanceof CycleError)) throw error;
    return {
      ok: false,
      problems: [
        {
          path: formatPath(error.path),
          message: "YAML error: an alias refers to the node that contains it; config data must not loop",
        },
      ],
    };
  }
  return {
    ok: true,
    data,
    emptied,
    locate: (path) => {
      const spot = locate(doc, path);
      const { line, col } = lineCounter.linePos(spot.offset);
      return { ...spot, line, column: col, named: namedPath(doc, path) };
    },
  };
}

class CycleError extends Error {
  constructor(readonly path: Path) {
    super("cycle");
  }
}

/**
 * `unit:` with nothing after it reads as null; the file means "not set", so the key
 * is removed and the field gets its default, exactly as if it were left out.
 */
function dropEmptyValues(value: unknown, path: Path, emptied: Set<string>, ancestors: Set<unknown>): unknown {
  if (typeof value !== "object" || value === null) return value;
  // `a: &x [*x]` builds a loop, which no config can mean.
  if (ancestors.has(value)) throw new CycleError(path);
  ancestors.add(value);
  let out: unknown;
  if (Array.isArray(value)) {
    out = value.map((item, i) => dropEmptyValues(item, [...path, i], emptied, ancestors));
  } else {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (item === null) emptied.add(formatPath([...path, key]));
      // defineProperty, so a `__proto__` key stays a key (and is reported as unknown).
      else
        Object.defineProperty(copy, key, {
          value: dropEmptyValues(item, [...path, key], emptied, ancestors),
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
    out = copy;
  }
  ancestors.delete(value);
  return out;
}

/** Fields that name a list item, in order of preference: what references and logs use. */
const itemNameFields = ["serial", "key", "name"];

/**
 * The path cut after each list item, the item's name added where it has one, the
 * parts joined by ` > `: a person finds `registers[10] "flow_temp"` faster than an index.
 */
function namedPath(doc: Document, path: Path): string {
  const parts: string[] = [];
  let current = "";
  let node: unknown = doc.contents;
  for (const segment of path) {
    if (isAlias(node)) node = node.resolve(doc);
    if (typeof segment === "number") {
      node = isSeq(node) ? node.items[segment] : undefined;
      if (isAlias(node)) node = node.resolve(doc);
      const name = isMap(node) ? itemName(node.items) : null;
      parts.push(`${current}[${segment}]${name === null ? "" : ` ${JSON.stringify(name)}`}`);
      current = "";
      continue;
    }
    const key = formatPath([segment]);
    current = current === "" || key.startsWith("[") ? `${current}${key}` : `${current}.${key}`;
    node = isMap(node) ? node.items.find((p) => isScalar(p.key) && String(p.key.value) === segment)?.value : undefined;
  }
  if (current !== "") parts.push(current);
  return parts.join(" > ");
}

function itemName(pairs: readonly { key: unknown; value: unknown }[]): string | null {
  for (const field of itemNameFields) {
    const pair = pairs.find((p) => isScalar(p.key) && p.key.value === field);
    if (isScalar(pair?.value) && (typeof pair.value.value === "string" || typeof pair.value.value === "number")) {
      return String(pair.value.value);
    }
  }
  return null;
}

function locate(doc: Document, path: Path): { offset: number; found: boolean } {
  let node: unknown = doc.contents;
  let offset = nodeStart(node) ?? 0;
  let depth = 0;
  for (const segment of path) {
    if (isAlias(node)) node = node.resolve(doc);
    let next: unknown;
    let start: number | undefined;
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
      if (pair === undefined) break;
      // The key's position: a problem about `port` reads best at the line `port:` is on.
      start = nodeStart(pair.key);
      next = pair.value;
    } else if (isSeq(node) && typeof segment === "number") {
      next = node.items[segment];
      if (next === undefined) break;
      start = nodeStart(next);
    } else {
      break;
    }
    offset = start ?? offset;
    node = next;
    depth++;
  }
  return { offset, found: depth === path.length };
}

function nodeStart(node: unknown): number | undefined {
  if (typeof node === "object" && node !== null && "range" in node && Array.isArray(node.range)) {
    return node.range[0] as number;
  }
  return undefined;
}
