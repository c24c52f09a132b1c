/** Resident memory of a process, from /proc (Linux). */
import { readFileSync } from "node:fs";

export function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (match === null) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]) / 1024;
}
