/**
 * The link to the broker (docs/mqtt.md, "The link"): one MQTT.js client at a time,
 * `{prefix}/status` online (retained) on every connect and `offline` as its last
 * will, reconnects with a bounded backoff (1 s doubling to 30 s), and a state that
 * /healthz, /metrics and the admin page read: `connecting`, `online`, `away` (the
 * broker cannot be reached: an outage fieldhub rides out), `refused` (credentials or
 * authorisation) or `tls_failed` (the broker's certificate was not accepted). Each
 * change of state is logged once.
 */
import { readFileSync } from "node:fs";
import mqtt, { type IClientOptions, type MqttClient } from "mqtt";
import type { Logger } from "../lib/logger.ts";
import type { MqttLinkState } from "../lib/mqtt-report.ts";
import type { MqttSettings } from "../lib/mqtt-settings.ts";

export type LinkState = MqttLinkState;

export interface LinkStatus {
  state: LinkState;
  /** Why it is not online (the broker's or the socket's words), or null. */
  reason: string | null;
  /** Wall time (ms) of the last successful connect, or null. */
  connectedAt: number | null;
  connects: number;
  /** Wall time (ms) the state last changed. */
  since: number;
  /** The last failure (state and reason) and its wall time (ms), kept after the link is back; null before any. */
  lastError: { state: LinkState; reason: string; at: number } | null;
}

/** A connected client, and a promise that rejects when that connection is gone. */
export interface Session {
  client: MqttClient;
  lost: Promise<never>;
}

const firstRetryMs = 1000;
const longestRetryMs = 30_000;

export function statusTopic(settings: MqttSettings): string {
  return `${settings.topicPrefix}/status`;
}

export function openLink(options: {
  settings: MqttSettings;
  logger: Logger;
  now: () => number;
  /** Called on every connect, before anything else is published on it. */
  onSession: (session: Session) => void;
  retryMs?: { first: number; longest: number };
  /**
   * Another identity on the same broker (the Sparkplug edge node's connection,
   * sparkplug/edge-node.ts): its client id, its last will, built anew for each
   * connect, and what it publishes on a clean stop instead of `offline`.
   */
  identity?: {
    clientId: string;
    will: () => NonNullable<IClientOptions["will"]>;
    farewell: (client: MqttClient) => Promise<unknown>;
  };
}) {
  const { settings, logger, now } = options;
  const retry = options.retryMs ?? { first: firstRetryMs, longest: longestRetryMs };
  const status: LinkStatus = {
    state: "connecting",
    reason: null,
    connectedAt: null,
    connects: 0,
    since: now(),
    lastError: null,
  };
  let client: MqttClient | null = null;
  let session: Session | null = null;
  let delay = retry.first;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  let loggedState: string | null = null;

  function setState(state: LinkState, reason: string | null): void {
    if (state !== "online" && state !== "connecting" && reason !== null)
      status.lastError = { state, reason, at: now() };
    status.state = state;
    status.reason = reason;
    const key = `${state}:${reason ?? ""}`;
    if (key === loggedState) return;
    // `connecting` between two failures of the same kind is not news (nor a new `since`).
    if (state === "connecting" && loggedState !== null) return;
    loggedState = key;
    status.since = now();
    const fields = { broker: settings.url, state, ...(reason === null ? {} : { reason }) };
    if (state === "online") logger.info(fields, "MQTT broker connected");
    else if (state === "away") logger.warn(fields, "MQTT broker unreachable; retrying with backoff, polling goes on");
    else if (state === "refused") logger.error(fields, "MQTT broker refused the connection; retrying with backoff");
    else if (state === "tls_failed")
      logger.error(fields, "MQTT broker's TLS certificate refused; retrying with backoff");
  }

  function clientOptions(): IClientOptions {
    const identity = options.identity;
    return {
      clientId: identity?.clientId ?? settings.clientId,
      ...(settings.username === null ? {} : { username: settings.username }),
      ...(settings.password === null ? {} : { password: settings.password }),
      ...(settings.caFile === null ? {} : { ca: readFileSync(settings.caFile) }),
      protocolVersion: 4,
      clean: true,
      // fieldhub reconnects itself, with a backoff MQTT.js does not have.
      reconnectPeriod: 0,
      connectTimeout: 10_000,
      keepalive: 30,
      // Nothing is queued while away: values are taken again from memory, events from the store.
      queueQoSZero: false,
      will: identity?.will() ?? { topic: statusTopic(settings), payload: Buffer.from("offline"), qos: 1, retain: true },
    };
  }

  function connect(): void {
    timer = null;
    if (stopped) return;
    if (status.state !== "online") setState("connecting", status.reason);
    let failure: { state: LinkState; reason: string } | null = null;
    let rejectLost: (error: Error) => void = () => {};
    const lost = new Promise<never>((_, reject) => {
      rejectLost = reject;
    });
    // Nobody may be waiting on it yet.
    lost.catch(() => {});
    let current: MqttClient;
    try {
      current = mqtt.connect(settings.url, clientOptions());
    } catch (error) {
      setState("away", error instanceof Error ? error.message : String(error));
      schedule();
      return;
    }
    client = current;
    current.on("connect", () => {
      delay = retry.first;
      status.connects += 1;
      status.connectedAt = now();
      setState("online", null);
      session = { client: current, lost };
      options.onSession(session);
    });
    current.on("error", (error: Error & { code?: string | number }) => {
      failure = classify(error);
    });
    current.on("close", () => {
      if (session?.client === current) session = null;
      rejectLost(new Error("MQTT connection closed"));
      current.removeAllListeners();
      current.on("error", () => {});
      current.end(true);
      if (client === current) client = null;
      if (stopped) return;
      const next = failure ?? { state: "away" as const, reason: "connection closed" };
      setState(next.state, next.reason);
      schedule();
    });
  }

  function schedule(): void {
    if (stopped || timer !== null) return;
    timer = setTimeout(connect, delay);
    delay = Math.min(delay * 2, retry.longest);
  }

  connect();

  return {
    status: (): LinkStatus => ({ ...status }),
    /** The connection now, or null while there is none. */
    session: (): Session | null => session,
    /** Publishes `offline` on fieldhub's status topic (a clean stop is no death), or the identity's farewell, and closes. */
    async stop(): Promise<void> {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      const current = client;
      if (current === null) return;
      let answering = session !== null;
      if (session !== null) {
        const farewell =
          options.identity?.farewell(current) ??
          current.publishAsync(statusTopic(settings), "offline", { qos: 1, retain: true });
        answering = await Promise.race([
          farewell.then(
            () => true,
            () => false,
          ),
          Bun.sleep(2000).then(() => false),
        ]);
      }
      // A broker that did not acknowledge `offline` in time is not waited for again.
      if (answering) await Promise.race([current.endAsync().catch(() => {}), Bun.sleep(2000)]);
      current.end(true);
    },
  };
}

const tlsCodes = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|TLS|SSL|HOSTNAME|ALTNAME/i;

/** What an error from MQTT.js says about the link. */
function classify(error: Error & { code?: string | number }): { state: LinkState; reason: string } {
  const code = error.code;
  // CONNACK return codes 4 (bad user name or password) and 5 (not authorised), MQTT 3.1.1 section 3.2.2.3.
  if (typeof code === "number" && code > 0) return { state: "refused", reason: error.message };
  if ((typeof code === "string" && tlsCodes.test(code)) || /certificate|self.signed|tls|ssl/i.test(error.message))
    return { state: "tls_failed", reason: typeof code === "string" ? `${code}: ${error.message}` : error.message };
  return { state: "away", reason: typeof code === "string" ? `${code}: ${error.message}` : error.message };
}
