/**
 * Debian's mbpoll as an independent Modbus TCP master on 127.0.0.1: one read or one
 * write of 16-bit holding registers (0-based addresses), its exit code and what it printed.
 */

/** Reads `count` holding registers from `start`, once; the values it printed. */
export async function mbpollRead(port: number, unit: number, start: number, count: number) {
  const { code, out, text } = await mbpoll(port, unit, start, ["-c", String(count), "-t", "4:hex"], []);
  const values = [...out.matchAll(/^\[(\d+)\]:\s+0x([0-9A-F]{4})/gm)].map((match) =>
    Number.parseInt(match[2] ?? "", 16),
  );
  return { code, values, text };
}

/** Writes `values` from `start` (function 6 for one value, 16 for more). */
export async function mbpollWrite(port: number, unit: number, start: number, values: number[]) {
  const { code, text } = await mbpoll(port, unit, start, ["-t", "4"], ["--", ...values.map(String)]);
  return { code, text };
}

async function mbpoll(port: number, unit: number, start: number, options: string[], tail: string[]) {
  const args = ["-m", "tcp", "-p", String(port), "-a", String(unit), "-0", "-r", String(start), ...options, "-1"];
  const proc = Bun.spawn(["mbpoll", ...args, "127.0.0.1", ...tail], { stdout: "pipe", stderr: "pipe" });
  const [out, err] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text()];
  return { code: await proc.exited, out, text: out + err };
}
