/** HTTP requests written byte for byte (fetch would add Host, normalise the path, refuse odd headers). */

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export async function rawRequest(baseUrl: string, text: string, timeoutMs = 5_000): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  let received = "";
  const closed = Promise.withResolvers<void>();
  const socket = await Bun.connect({
    hostname,
    port: Number(port),
    socket: {
      data(_socket, chunk) {
        received += new TextDecoder().decode(chunk);
      },
      close() {
        closed.resolve();
      },
      error() {
        closed.resolve();
      },
    },
  });
  socket.write(text);
  socket.flush();
  // HTTP/1.0 or Connection: close: the server closes after the answer.
  await Promise.race([closed.promise, Bun.sleep(timeoutMs)]);
  socket.end();
  return parse(received);
}

function parse(text: string): RawResponse {
  const end = text.indexOf("\r\n\r\n");
  const head = end < 0 ? text : text.slice(0, end);
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(" ")[1] ?? 0), headers, body: end < 0 ? "" : text.slice(end + 4) };
}
