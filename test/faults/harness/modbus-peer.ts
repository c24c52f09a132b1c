/**
 * An independent Modbus TCP peer (Debian's pymodbus, test/fixtures/pymodbus_server.py)
 * that can be stopped and started again on the same port, like equipment that
 * reboots or a cable that is pulled.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

const python = "/usr/bin/python3";
const fixture = join(import.meta.dir, "..", "..", "fixtures", "pymodbus_server.py");
export const hasPymodbus = existsSync(python);

/**
 * A config with one organisation `site` and one TCP gateway polling this peer's unit 1
 * every 200 ms (registers r0 and r1: int16 100 and 101). `before` goes above the
 * organisations (e.g. a retention section); `bus` adds to the bus settings.
 */
export function peerSiteYaml(options: {
  serial: string;
  port: number;
  storageIntervalS?: number;
  bus?: string;
  before?: string;
}): string {
  return `${options.before ?? ""}
organizations: [{ key: site, name: Site }]
gateways:
  - serial: ${options.serial}
    name: ${options.serial}
    heartbeat_s: 5
${options.storageIntervalS === undefined ? "" : `    storage_interval_s: ${options.storageIntervalS}\n`}    bus: { type: tcp${options.bus === undefined ? "" : `, ${options.bus}`} }
    devices:
      - name: Meter
        slave_id: 1
        host: 127.0.0.1
        port: ${options.port}
        poll_interval_ms: 200
        timeout_ms: 300
        registers:
          - { name: r0, address: 0, function_code: 3, data_type: int16 }
          - { name: r1, address: 1, function_code: 3, data_type: int16 }
`;
}

function spec(port: number) {
  return {
    tcp_port: port,
    serial: null,
    units: { "1": { hr: [0, 1, 2, 3].map((address) => ({ address, type: "int16", value: 100 + address })) } },
  };
}

async function launch(port: number) {
  const proc = Bun.spawn([python, fixture, JSON.stringify(spec(port))], { stdout: "pipe", stderr: "ignore" });
  const reader = proc.stdout.getReader();
  let text = "";
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
    const match = /READY (\d+)/.exec(text);
    if (match) {
      reader.releaseLock();
      return { proc, port: Number(match[1]) };
    }
  }
  proc.kill();
  throw new Error(`pymodbus peer did not start: ${text}`);
}

export async function startModbusPeer() {
  let current = await launch(0);
  const port = current.port;
  return {
    port,
    async stop(): Promise<void> {
      current.proc.kill("SIGKILL");
      await current.proc.exited;
    },
    /** Starts again on the same port (the address the gateway polls). */
    async restart(): Promise<void> {
      current = await launch(port);
    },
    kill(): void {
      current.proc.kill("SIGKILL");
    },
  };
}
