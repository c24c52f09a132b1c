/**
 * Lines of a file or stdin, in constant memory: a fixed buffer is read with plain
 * reads only when the previous lines are consumed (a stream reading ahead while
 * the importer blocks in a long transaction would buffer without bound), decoded,
 * split, and each read's complete lines handed over together (one array per read
 * keeps the per-line cost low). A last line without a newline is a line too.
 */
import { closeSync, openSync, readSync } from "node:fs";

export interface LineChunk {
  lines: string[];
  /** Bytes consumed so far, for progress. */
  bytes: number;
}

const chunkBytes = 1 << 20;

/** Reads `fd` (blocking reads; a non-blocking stdin is waited on). */
function* chunksOf(fd: number): Generator<Uint8Array> {
  const buffer = Buffer.alloc(chunkBytes);
  for (;;) {
    let read: number;
    try {
      read = readSync(fd, buffer, 0, chunkBytes, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EAGAIN") {
        Bun.sleepSync(5);
        continue;
      }
      throw error;
    }
    if (read === 0) return;
    yield buffer.subarray(0, read);
  }
}

/** The lines of FILE, or of stdin for "-". */
export function* readLines(path: string): Generator<LineChunk> {
  const fd = path === "-" ? 0 : openSync(path, "r");
  try {
    const decoder = new TextDecoder();
    let rest = "";
    let bytes = 0;
    for (const chunk of chunksOf(fd)) {
      bytes += chunk.byteLength;
      const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
      rest = lines.pop() ?? "";
      if (lines.length > 0) yield { lines, bytes };
    }
    rest += decoder.decode();
    if (rest !== "") yield { lines: [rest], bytes };
  } finally {
    if (fd !== 0) closeSync(fd);
  }
}
