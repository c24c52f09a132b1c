/**
 * Real peers for the serial transport tests: socat pty pairs, Debian's pymodbus RTU
 * server and a scripted misbehaving device (Python, independent of fieldhub's code).
 * Every child is tracked, and stopAll() kills whatever is left.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";

export const PYTHON = "/usr/bin/python3";
const FIXTURES = join(import.meta.dir, "fixtures");
const INSTALL_HINT = "apt-get install socat python3-pymodbus";

/** Why the peers cannot run here, or undefined when they can. */
export function missingPeers(): string | undefined {
  if (Bun.which("socat") === null) return `socat is not installed: ${INSTALL_HINT}`;
  if (!existsSync(PYTHON)) return `${PYTHON} is missing: ${INSTALL_HINT}`;
  const probe = Bun.spawnSync([PYTHON, "-c", "import pymodbus, serial_asyncio"], { stderr: "pipe" });
  if (probe.exitCode !== 0) {
    return `${PYTHON} cannot import pymodbus and serial_asyncio: ${INSTALL_HINT} (${probe.stderr.toString().trim()})`;
  }
  return undefined;
}

/** Rejects after `ms` with a message naming what was awaited. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A child process whose stdout lines are collected as they come. */
export class Child {
  readonly lines: string[] = [];
  private readonly waiters: (() => void)[] = [];
  stderr = "";
  /** Resolves once the child exited and its output was read to the end. */
  readonly finished: Promise<number>;

  constructor(
    readonly name: string,
    readonly proc: Subprocess<"ignore", "pipe", "pipe">,
  ) {
    const out = this.collect(proc.stdout, (text) => {
      const parts = text.split("\n");
      for (const line of parts) if (line.trim() !== "") this.lines.push(line.trim());
      for (const wake of this.waiters.splice(0)) wake();
    });
    const err = this.collect(proc.stderr, (text) => {
      this.stderr = (this.stderr + text).slice(-4000);
    });
    this.finished = Promise.all([out, err, proc.exited]).then(([, , code]) => code);
    void proc.exited.then(() => {
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  private async collect(stream: ReadableStream<Uint8Array>, sink: (text: string) => void): Promise<void> {
    const decoder = new TextDecoder();
    let pending = "";
    try {
      for await (const chunk of stream) {
        pending += decoder.decode(chunk, { stream: true });
        const end = pending.lastIndexOf("\n");
        if (end >= 0) {
          sink(pending.slice(0, end + 1));
          pending = pending.slice(end + 1);
        }
      }
    } catch {
      // the pipe broke: keep what was read
    }
    if (pending !== "") sink(pending);
  }

  /** Waits for a stdout line that satisfies `match`. */
  async waitForLine(match: (line: string) => boolean, ms: number): Promise<string> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.lines.find(match);
      if (found !== undefined) return found;
      if (this.proc.exitCode !== null || this.proc.signalCode !== null) {
        await within(2000, `${this.name}'s output`, this.finished);
        const last = this.lines.find(match);
        if (last !== undefined) return last;
        throw new Error(`${this.name} exited (${this.proc.exitCode ?? this.proc.signalCode}): ${this.stderr}`);
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${this.name}: no matching line within ${ms} ms; stderr: ${this.stderr}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  get running(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** Stops the child (SIGTERM, then SIGKILL after 2 s) and waits for it. */
  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    if (!this.running) return;
    this.proc.kill(signal);
    const exited = await Promise.race([this.proc.exited.then(() => true), sleep(2000).then(() => false)]);
    if (!exited) {
      this.proc.kill("SIGKILL");
      await within(2000, `${this.name} to die`, this.proc.exited);
    }
  }
}

export class Peers {
  readonly dir = mkdtempSync(join(tmpdir(), "fieldhub-serial-"));
  private readonly children = new Set<Child>();

  private spawn(name: string, cmd: string[]): Child {
    const proc = Bun.spawn(cmd, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const child = new Child(name, proc);
    this.children.add(child);
    return child;
  }

  /** A socat pty pair; resolves once both links point at ttys. Reusing a name replaces the links. */
  async ptyPair(name: string): Promise<{ socat: Child; a: string; b: string }> {
    const a = join(this.dir, `${name}-a`);
    const b = join(this.dir, `${name}-b`);
    rmSync(a, { force: true });
    rmSync(b, { force: true });
    const socat = this.spawn(`socat ${name}`, [
      "socat",
      "-d",
      "-d",
      `pty,raw,echo=0,link=${a}`,
      `pty,raw,echo=0,link=${b}`,
    ]);
    const deadline = Date.now() + 5000;
    for (;;) {
      if (linked(a) && linked(b)) return { socat, a, b };
      if (!socat.running) throw new Error(`socat exited: ${socat.stderr}`);
      if (Date.now() > deadline) throw new Error(`socat made no pty links within 5 s: ${socat.stderr}`);
      await sleep(20);
    }
  }

  /** Debian's pymodbus RTU server (fixtures/rtu_server.py) on `path`; resolves once it prints READY. */
  async rtuServer(path: string, baudRate = 9600, parity: "N" | "E" | "O" = "N", stopBits = 1): Promise<Child> {
    const server = this.spawn("pymodbus rtu server", [
      PYTHON,
      join(FIXTURES, "rtu_server.py"),
      path,
      String(baudRate),
      parity,
      String(stopBits),
      "8",
    ]);
    await server.waitForLine((line) => line === "READY", 10_000);
    return server;
  }

  /** The scripted device (fixtures/scripted_peer.py) on `path`. */
  async scriptedPeer(path: string, steps: string[]): Promise<Child> {
    const peer = this.spawn("scripted peer", [PYTHON, join(FIXTURES, "scripted_peer.py"), path, ...steps]);
    await peer.waitForLine((line) => line === "READY", 5000);
    return peer;
  }

  /** Any other command, collected the same way. */
  run(name: string, cmd: string[]): Child {
    return this.spawn(name, cmd);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.children].map((child) => child.stop().catch(() => child.proc.kill("SIGKILL"))));
    this.children.clear();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function linked(path: string): boolean {
  try {
    return realpathSync(path).startsWith("/dev/");
  } catch {
    return false;
  }
}
