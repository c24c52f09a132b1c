/**
 * The output file of `fieldhub mirror`, which is also its resume state: rows are
 * appended as whole lines, so after a crash (kill -9 included) the file holds whole
 * rows plus at most one torn last line, which is cut off on the next run. Reading
 * the file back gives, per gateway, the newest time written and the registers
 * already written at that time: the next run asks from that time and drops the
 * rows it already has, so no row is written twice.
 */
import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, writeSync } from "node:fs";
import { historyDecoder, RowError } from "./decode.ts";
import type { HistoryFormat } from "./encode.ts";
import { readLines } from "./lines.ts";

/** Where a gateway's mirror stands: its newest written time and the rows written at that time. */
export interface MirrorMark {
  ts: number;
  written: Set<string>;
}

/** How the mirror tells rows apart: device and register names, which every format carries. */
export function rowKey(device: string | null, register: string): string {
  return `${device ?? ""}\u0000${register}`;
}

/** Cuts a torn last line (a write the crash interrupted); returns the file's size after. */
function cutTornLine(fd: number): number {
  const size = fstatSync(fd).size;
  const buffer = Buffer.alloc(64 * 1024);
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - buffer.length);
    const length = end - start;
    readSync(fd, buffer, 0, length, start);
    if (end === size && buffer[length - 1] === 0x0a) return size;
    const newline = buffer.subarray(0, length).lastIndexOf(0x0a);
    if (newline !== -1) {
      ftruncateSync(fd, start + newline + 1);
      return start + newline + 1;
    }
    end = start;
  }
  ftruncateSync(fd, 0);
  return 0;
}

/** The marks of an existing output, read in one pass (memory: one mark per gateway). */
function readMarks(path: string, format: HistoryFormat): Map<string, MirrorMark> {
  const marks = new Map<string, MirrorMark>();
  const decode = historyDecoder(format, "s");
  let lineNumber = 0;
  for (const chunk of readLines(path)) {
    for (const line of chunk.lines) {
      lineNumber++;
      let row: ReturnType<typeof decode>;
      try {
        row = decode(line);
      } catch (error) {
        if (error instanceof RowError) throw new RowError(`${path} line ${lineNumber}: ${error.message}`);
        throw error;
      }
      if (row === null || row.gateway === null || row.register === null) continue;
      const mark = marks.get(row.gateway);
      const key = rowKey(row.device, row.register);
      if (mark === undefined || row.ts > mark.ts) marks.set(row.gateway, { ts: row.ts, written: new Set([key]) });
      else if (row.ts === mark.ts) mark.written.add(key);
    }
  }
  return marks;
}

export interface MirrorFile {
  marks: Map<string, MirrorMark>;
  /** True when nothing is in the file yet (a csv header is then due). */
  empty: boolean;
  append(text: string): void;
  /** Flushes appended rows to the disk. */
  sync(): void;
  close(): void;
}

export async function openMirrorFile(path: string, format: HistoryFormat): Promise<MirrorFile> {
  const fd = openSync(path, existsSync(path) ? "r+" : "w+");
  const size = cutTornLine(fd);
  const marks = size === 0 ? new Map<string, MirrorMark>() : readMarks(path, format);
  let position = size;
  return {
    marks,
    empty: size === 0,
    append(text) {
      const bytes = Buffer.from(text);
      let done = 0;
      while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
      position += bytes.length;
    },
    sync: () => fsyncSync(fd),
    close: () => {
      fsyncSync(fd);
      closeSync(fd);
    },
  };
}
