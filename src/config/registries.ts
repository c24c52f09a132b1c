/**
 * Bookkeeping the cross-field checks share: names that must be unique, and public ids
 * that must be unique per kind, whether written in the file or derived.
 */
import { uuidPattern } from "../lib/ids.ts";
import { formatPath, type Path } from "./problems.ts";

export type Report = (path: Path, message: string) => void;

/** Remembers the first place a value was seen and reports later repeats. */
export class FirstSeen {
  private readonly seen = new Map<string, Path>();
  constructor(
    private readonly label: string,
    private readonly report: Report,
  ) {}

  /** True when `value` is new; otherwise reports the duplicate at `path`. */
  isNew(value: string, path: Path): boolean {
    const first = this.seen.get(value);
    if (first !== undefined) {
      this.report(path, `duplicate ${this.label} "${value}" (also at ${formatPath(first)})`);
      return false;
    }
    this.seen.set(value, path);
    return true;
  }
}

export type IdKind = "organization" | "customer" | "gateway" | "device" | "register" | "rule" | "automation";

/**
 * Ids must be unique per kind across the file, whether written or derived. A
 * derived id is only claimed when the element's natural key is new, so a
 * duplicate key is reported once (as a duplicate key), not again as an id clash.
 */
export class IdRegistry {
  private readonly owners = new Map<string, { path: Path; explicit: boolean; templateRegister?: string }>();
  constructor(private readonly report: Report) {}

  /**
   * `templateRegister` names a template register the file leaves alone: it has no place
   * of its own in the file, so `elementPath` is its device's `template`.
   */
  claim(
    kind: IdKind,
    written: unknown,
    elementPath: Path,
    derived: string | undefined,
    templateRegister?: string,
  ): void {
    let id = derived;
    let explicit = false;
    if (written !== undefined) {
      // A malformed written id is the structure check's to report.
      if (typeof written !== "string" || !uuidPattern.test(written)) return;
      id = written.toLowerCase();
      explicit = true;
    }
    if (id === undefined) return;
    const key = `${kind} ${id}`;
    const owner = this.owners.get(key);
    if (owner === undefined) {
      this.owners.set(key, { path: elementPath, explicit, templateRegister });
      return;
    }
    const where = owner.explicit
      ? `also at ${formatPath([...owner.path, "id"])}`
      : owner.templateRegister !== undefined
        ? `also the id derived for template register "${owner.templateRegister}" of ${formatPath(owner.path.slice(0, -1))}`
        : `also the id derived for ${formatPath(owner.path)}`;
    const label = templateRegister === undefined ? "" : `template register "${templateRegister}": `;
    if (explicit) this.report([...elementPath, "id"], `duplicate id "${id}" (${where})`);
    else this.report(elementPath, `${label}its derived id "${id}" is already used (${where}); give it an explicit id`);
  }
}
