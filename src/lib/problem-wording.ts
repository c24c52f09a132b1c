/**
 * Words for a person editing a file: "did you mean" for misspelt field names and
 * references, and how a value is shown after "got".
 */

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] as number;
}

// `slaveId`, `Slave-ID` and `slave_id` are the same word to a reader.
function canonical(name: string): string {
  return name.toLowerCase().replace(/[-_\s]/g, "");
}

/** The closest candidate, if it is close enough to be the intended one. */
export function closestMatch(name: string, candidates: readonly string[]): string | undefined {
  const wanted = canonical(name);
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(wanted, canonical(candidate));
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  // Short names need a near-exact match, or every two-letter typo "means" something.
  const allowed = Math.max(1, Math.min(3, Math.floor(wanted.length / 3)));
  return bestDistance <= allowed ? best : undefined;
}

/** ` (did you mean "x"?)`, or "" when nothing is close. */
export function didYouMean(name: string, candidates: readonly string[]): string {
  const match = closestMatch(name, candidates);
  return match === undefined ? "" : ` (did you mean "${match}"?)`;
}

/** How a value is shown after "got": in YAML's words, short enough for one line. */
export function describeValue(value: unknown): string {
  if (value === undefined || value === null) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") {
    const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
    return JSON.stringify(shown);
  }
  if (typeof value === "number" && !Number.isFinite(value)) {
    return Number.isNaN(value) ? ".nan" : value > 0 ? ".inf" : "-.inf";
  }
  return String(value);
}
