/**
 * An independent Sparkplug B subscriber (test/fixtures/sparkplug_subscriber.py):
 * Debian's paho-mqtt reads, and Debian's python3-protobuf decodes with the module
 * Debian's protoc generates, at test time, from the published schema
 * (src/mqtt/sparkplug/sparkplug_b.proto). Also an NCMD sent the same way.
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Broker, brokerPassword, brokerUser } from "./mosquitto.ts";
import { linesOf } from "./pymodbus.ts";

const python = "/usr/bin/python3";
const schemaDir = join(import.meta.dir, "..", "..", "src", "mqtt", "sparkplug");
const fixture = join(import.meta.dir, "..", "fixtures", "sparkplug_subscriber.py");

export const hasSparkplugPeers =
  existsSync("/usr/bin/protoc") &&
  Bun.spawnSync([python, "-c", "import paho.mqtt.client, google.protobuf"]).exitCode === 0;

export interface SparkplugMetric {
  name: string | null;
  alias: number | null;
  timestamp: number | null;
  datatype: number | null;
  is_historical: boolean;
  is_null: boolean;
  value: number | boolean | string | null;
}

export interface SparkplugMessage {
  topic: string;
  timestamp: number | null;
  seq: number | null;
  metrics: SparkplugMetric[];
}

/** protoc's Python module of the schema, in a directory of its own. */
function generatedModule(): string {
  const out = mkdtempSync(join(tmpdir(), "fieldhub-sparkplug-pb2-"));
  const made = Bun.spawnSync([
    "/usr/bin/protoc",
    `--proto_path=${schemaDir}`,
    `--python_out=${out}`,
    "sparkplug_b.proto",
  ]);
  if (made.exitCode !== 0) throw new Error(`protoc failed: ${made.stderr.toString()}`);
  return out;
}

export async function startSparkplugSubscriber(broker: Broker) {
  const modules = generatedModule();
  const proc = Bun.spawn(
    [python, fixture, String(broker.port), brokerUser, brokerPassword, `spb-${crypto.randomUUID().slice(0, 8)}`],
    { stdin: "pipe", stdout: "pipe", stderr: "ignore", env: { ...process.env, PYTHONPATH: modules } },
  );
  const { nextLine } = linesOf(proc);
  const messages: SparkplugMessage[] = [];
  let subscribed = 0;
  const first = await nextLine();
  if (first !== "SUBSCRIBED") throw new Error(`Sparkplug subscriber did not subscribe: ${first}`);
  subscribed += 1;
  void (async () => {
    for (;;) {
      let line: string;
      try {
        line = await nextLine();
      } catch (error) {
        // Silent for 10 s (nothing published): keep reading; ended: stop.
        if (proc.exitCode !== null) return;
        if (String(error).includes("silent")) continue;
        return;
      }
      if (line === "SUBSCRIBED") subscribed += 1;
      else if (line.startsWith("{")) messages.push(JSON.parse(line) as SparkplugMessage);
    }
  })();
  return {
    messages,
    subscriptions: () => subscribed,
    of: (type: string) => messages.filter((message) => message.topic.split("/")[2] === type),
    /** Publishes an NCMD with the given metrics (encoded by python3-protobuf) to an edge node. */
    async command(topic: string, metrics: { name: string; datatype: number; boolean_value: boolean }[]) {
      const script = `
import sys, json, time
import paho.mqtt.publish as publish
import sparkplug_b_pb2
payload = sparkplug_b_pb2.Payload()
payload.timestamp = int(time.time() * 1000)
for m in json.loads(sys.argv[2]):
    metric = payload.metrics.add()
    metric.name = m["name"]
    metric.datatype = m["datatype"]
    metric.boolean_value = m["boolean_value"]
publish.single(sys.argv[1], payload.SerializeToString(), qos=0, hostname="127.0.0.1", port=int(sys.argv[3]),
               auth={"username": sys.argv[4], "password": sys.argv[5]})
`;
      const sent = Bun.spawn(
        [python, "-c", script, topic, JSON.stringify(metrics), String(broker.port), brokerUser, brokerPassword],
        { stdout: "ignore", stderr: "pipe", env: { ...process.env, PYTHONPATH: modules } },
      );
      if ((await sent.exited) !== 0) throw new Error(`NCMD not sent: ${await new Response(sent.stderr).text()}`);
    },
    stop(): void {
      proc.kill("SIGTERM");
    },
  };
}
