/**
 * Debian's pymodbus as Modbus equipment for end-to-end tests (test/fixtures/pymodbus_server.py
 * says what a spec holds and what the peer answers on stdin), and the socat lines RTU
 * peers sit on (a pty pair: the peer on one end, fieldhub on the other).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

const python = "/usr/bin/python3";
const serverFixture = join(import.meta.dir, "..", "fixtures", "pymodbus_server.py");

/** A running peer: its TCP port (0 on a serial line) and `ask`, a line to its stdin and the line it answers (DUMP, STATS). */
export type PymodbusPeer = { proc: ReturnType<typeof Bun.spawn>; port: number; ask(line: string): Promise<string> };

export async function startPymodbusPeer(spec: unknown): Promise<PymodbusPeer> {
  const proc = Bun.spawn([python, serverFixture, JSON.stringify(spec)], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
  });
  const { nextLine, ask } = linesOf(proc);
  const ready = await nextLine();
  const match = /READY (\d+|serial)/.exec(ready);
  if (match === null) throw new Error(`pymodbus peer did not start: ${ready}`);
  return { proc, port: match[1] === "serial" ? 0 : Number(match[1]), ask };
}

/** A peer process spoken to in lines: `nextLine` reads one, `ask` writes one and reads the answer, in turn. */
export function linesOf(proc: Bun.Subprocess<"pipe", "pipe", "ignore" | "inherit">) {
  const reader = proc.stdout.getReader();
  let buffer = "";
  const nextLine = async (): Promise<string> => {
    const deadline = Date.now() + 10_000;
    while (!buffer.includes("\n")) {
      if (Date.now() > deadline) throw new Error(`pymodbus peer is silent: ${buffer}`);
      const { value, done } = await reader.read();
      if (done) throw new Error(`pymodbus peer ended: ${buffer}`);
      buffer += new TextDecoder().decode(value);
    }
    const at = buffer.indexOf("\n");
    const line = buffer.slice(0, at);
    buffer = buffer.slice(at + 1);
    return line;
  };
  let queue = Promise.resolve("");
  const ask = (line: string) => {
    queue = queue.then(async () => {
      proc.stdin.write(`${line}\n`);
      await proc.stdin.flush();
      return nextLine();
    });
    return queue;
  };
  return { nextLine, ask };
}

/** socat with the given addresses; resolves when every link it creates exists. */
export async function startSocat(addresses: string[], links: string[]) {
  const proc = Bun.spawn(["socat", ...addresses], { stdout: "ignore", stderr: "ignore" });
  const deadline = Date.now() + 10_000;
  while (!links.every((link) => existsSync(link))) {
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`socat did not start: ${addresses.join(" ")}`);
    await Bun.sleep(20);
  }
  return proc;
}
