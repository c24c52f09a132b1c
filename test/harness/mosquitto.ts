/**
 * A private Debian mosquitto per test: a password file (one user), a plain
 * listener and, when asked, a TLS listener whose certificate a throwaway CA made
 * here with openssl signed. Persistent sessions survive a stop and start on the
 * same ports (like a broker restarted by its operator). An independent subscriber
 * (Debian's mosquitto_sub, QoS 1, persistent session) records what arrives.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MqttSettings } from "../../src/lib/mqtt-settings.ts";

export const hasMosquitto = existsSync("/usr/sbin/mosquitto") && existsSync("/usr/bin/mosquitto_sub");

export const brokerUser = "fieldhub";
export const brokerPassword = "s3cret-broker-pass";

async function freePort(): Promise<number> {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

async function run(args: string[], cwd: string): Promise<void> {
  const proc = Bun.spawn(args, { cwd, stdout: "ignore", stderr: "pipe" });
  const stderr = await new Response(proc.stderr).text();
  if ((await proc.exited) !== 0) throw new Error(`${args.join(" ")} failed: ${stderr}`);
}

/** A CA, and a server certificate for 127.0.0.1 and localhost signed by it. */
async function makeCertificates(dir: string): Promise<{ ca: string; cert: string; key: string }> {
  const subj = (cn: string) => ["-subj", `/CN=${cn}`];
  await run(
    [
      "openssl",
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      "ca.key",
      "-out",
      "ca.pem",
      "-days",
      "2",
      ...subj("fieldhub test CA"),
    ],
    dir,
  );
  await run(
    [
      "openssl",
      "req",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      "server.key",
      "-out",
      "server.csr",
      ...subj("localhost"),
    ],
    dir,
  );
  writeFileSync(join(dir, "san.ext"), "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
  await run(
    [
      "openssl",
      "x509",
      "-req",
      "-in",
      "server.csr",
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      "server.pem",
      "-days",
      "2",
      "-extfile",
      "san.ext",
    ],
    dir,
  );
  return { ca: join(dir, "ca.pem"), cert: join(dir, "server.pem"), key: join(dir, "server.key") };
}

/**
 * `queueQos0`: QoS 0 messages are queued for a persistent session while its client is
 * away, as QoS 1 ones are (Sparkplug publishes at QoS 0, and a subscriber that
 * reconnects after a broker restart must not miss what fieldhub sent first).
 */
export async function startMosquitto(dir: string, options: { tls?: boolean; queueQos0?: boolean } = {}) {
  mkdirSync(dir, { recursive: true });
  const passwordFile = join(dir, "passwd");
  await run(["mosquitto_passwd", "-b", "-c", passwordFile, brokerUser, brokerPassword], dir);
  const port = await freePort();
  const tlsPort = options.tls ? await freePort() : null;
  const certificates = options.tls ? await makeCertificates(dir) : null;
  const lines = [
    "per_listener_settings false",
    "allow_anonymous false",
    `password_file ${passwordFile}`,
    "persistence true",
    `persistence_location ${dir}/`,
    "log_dest stderr",
    "log_type error",
    "log_type warning",
    // The default (1000) drops QoS 1 messages a subscriber has not taken yet: a burst of 2,000 would lose some.
    "max_queued_messages 100000",
    `listener ${port} 127.0.0.1`,
  ];
  if (options.queueQos0) lines.push("queue_qos0_messages true");
  // As root, mosquitto would switch to the `mosquitto` user, who cannot write here.
  if (process.getuid?.() === 0) lines.unshift("user root");
  if (tlsPort !== null && certificates !== null) {
    lines.push(
      `listener ${tlsPort} 127.0.0.1`,
      `cafile ${certificates.ca}`,
      `certfile ${certificates.cert}`,
      `keyfile ${certificates.key}`,
    );
  }
  const configFile = join(dir, "mosquitto.conf");
  writeFileSync(configFile, `${lines.join("\n")}\n`);

  let proc: ReturnType<typeof Bun.spawn> | null = null;
  let starts = 0;
  async function start(): Promise<void> {
    const log = Bun.file(join(dir, `mosquitto-${++starts}.log`));
    const spawn = () => Bun.spawn(["/usr/sbin/mosquitto", "-c", configFile], { stdout: "ignore", stderr: log });
    let current = spawn();
    proc = current;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      // The port of the stopped broker may not be free again yet: start again.
      if (current.exitCode !== null) {
        await Bun.sleep(200);
        current = spawn();
        proc = current;
      }
      try {
        const socket = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
        socket.end();
        return;
      } catch {
        await Bun.sleep(50);
      }
    }
    throw new Error(`mosquitto did not start listening: ${await log.text()}`);
  }
  await start();
  return {
    port,
    tlsPort,
    caFile: certificates?.ca ?? null,
    url: `mqtt://127.0.0.1:${port}`,
    start,
    /** SIGTERM: the broker saves its sessions and stops. */
    async stop(): Promise<void> {
      const running = proc;
      proc = null;
      if (running === null || running.exitCode !== null) return;
      running.kill("SIGTERM");
      await running.exited;
    },
  };
}

export type Broker = Awaited<ReturnType<typeof startMosquitto>>;

/** fieldhub's MQTT settings for a private broker, as the benchmarks publish to it (no deadbands). */
export function brokerSettings(broker: Broker, sparkplug: MqttSettings["sparkplug"] = null): MqttSettings {
  return {
    url: broker.url,
    username: brokerUser,
    password: brokerPassword,
    caFile: null,
    clientId: "fieldhub-bench",
    topicPrefix: "fieldhub",
    qos: 1,
    maxIntervalMs: 300_000,
    homeAssistant: null,
    sparkplug,
    deadbands: new Map(),
  };
}

export interface Received {
  topic: string;
  payload: string;
  retain: boolean;
  /** When it arrived here (ms). */
  at: number;
}

/** mosquitto_sub on `topic` with a persistent QoS 1 session: it reconnects by itself after a broker restart. */
export function startSubscriber(broker: Broker, topic: string, clientId = `sub-${crypto.randomUUID().slice(0, 8)}`) {
  const received: Received[] = [];
  const proc = Bun.spawn(
    [
      "mosquitto_sub",
      "-h",
      "127.0.0.1",
      "-p",
      String(broker.port),
      "-u",
      brokerUser,
      "-P",
      brokerPassword,
      "-i",
      clientId,
      "-c",
      "-q",
      "1",
      "-t",
      topic,
      "-F",
      "%j",
    ],
    { stdout: "pipe", stderr: "ignore" },
  );
  void (async () => {
    let buffer = "";
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout) {
      buffer += decoder.decode(chunk, { stream: true });
      let newline = buffer.indexOf("\n");
      while (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf("\n");
        if (!line.startsWith("{")) continue;
        const message = JSON.parse(line) as { topic: string; payload: string | null; retain: number };
        // mosquitto_sub writes an empty payload as null.
        received.push({
          topic: message.topic,
          payload: message.payload ?? "",
          retain: message.retain === 1,
          at: Date.now(),
        });
      }
    }
  })();
  return {
    received,
    on: (wanted: string) => received.filter((message) => message.topic === wanted),
    stop(): void {
      proc.kill("SIGTERM");
    },
  };
}
