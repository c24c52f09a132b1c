/**
 * Lines of a byte stream, in constant memory: chunks are decoded and split as they
 * arrive, and each chunk's complete lines are handed over together (one array per
 * chunk keeps the per-line cost low). A last line without a newline is a line too.
 */
export interface LineChunk {
  lines: string[];
  /** Bytes consumed so far, for progress. */
  bytes: number;
}

export async function* readLines(stream: AsyncIterable<Uint8Array>): AsyncGenerator<LineChunk> {
  const decoder = new TextDecoder();
  let rest = "";
  let bytes = 0;
  for await (const chunk of stream) {
    bytes += chunk.byteLength;
    const text = rest + decoder.decode(chunk, { stream: true });
    const lines = text.split("\n");
    rest = lines.pop() ?? "";
    if (lines.length > 0) yield { lines, bytes };
  }
  rest += decoder.decode();
  if (rest !== "") yield { lines: [rest], bytes };
}
