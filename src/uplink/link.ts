/**
 * A site's link to its central (docs/fleet.md, "Sites"): every check interval the
 * site asks `GET {url}/edge/v1/session` with its edge token, outward only (sites
 * sit behind NAT). The answer is the link's state: connected, unreachable (the
 * site keeps polling and storing; its history is the buffer) or refused (a
 * revoked or unknown token, a forward the central refuses, or an answer this site
 * cannot read, docs/fleet.md "The edge protocol": an operator must act, so
 * /healthz says so). While connected, each round forwards what is new.
 */
import type { Clock } from "../lib/clock.ts";
import { edgeMessages } from "../lib/edge-protocol/messages.ts";
import type { Logger } from "../lib/logger.ts";
import type { UplinkState } from "../lib/uplink-report.ts";
import { CentralCallError, type CentralClient } from "./central-client.ts";
import type { Forwarder } from "./forwarder.ts";

export interface UplinkStatus {
  state: UplinkState;
  /**
   * Why it is unreachable or refused: the central's error code and detail, the
   * network error, or the answer this site cannot read (docs/fleet.md, "The edge protocol").
   */
  reason: string | null;
  /** The organisation and site name the central knows this token by, once connected. */
  organization: string | null;
  site: string | null;
  /** When the central last answered (epoch ms), and when the state last changed. */
  lastContactAt: number | null;
  since: number;
}

export interface UplinkOptions {
  /** The central's URL, for the log. */
  url: string;
  /** The calls to the central, with the site's edge token. */
  central: CentralClient;
  checkIntervalMs: number;
  clock: Clock;
  logger: Logger;
  /** Forwarding (forwarder.ts), run after each accepted check; absent: the link is only checked. */
  forwarder?: Forwarder;
}

export interface Uplink {
  status(): UplinkStatus;
  stop(): Promise<void>;
}

export function startUplink(options: UplinkOptions): Uplink {
  const { clock, logger } = options;
  let status: UplinkStatus = {
    state: "connecting",
    reason: null,
    organization: null,
    site: null,
    lastContactAt: null,
    since: clock.now(),
  };
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  /** The organisation and site of the last accepted session check. */
  let accepted: { organization: string; site: string } | null = null;
  /**
   * The call the central refused, or answered what this site cannot read (as
   * "METHOD /edge/v1/..."), while the state is refused; null otherwise.
   */
  let failedCall: string | null = null;
  /** The next accepted session check starts a new connection: positions asked again, a new catch-up. */
  let fresh = true;

  const become = (next: Omit<UplinkStatus, "since" | "lastContactAt">, contacted: boolean) => {
    const now = clock.now();
    const changed = next.state !== status.state || next.reason !== status.reason;
    status = {
      ...next,
      lastContactAt: contacted ? now : status.lastContactAt,
      since: changed ? now : status.since,
    };
    if (!changed) return;
    // The token is never logged: only what the central said of it.
    const fields = { central: options.url, state: next.state, reason: next.reason };
    if (next.state === "connected")
      logger.info({ ...fields, organization: next.organization, site: next.site }, "uplink connected");
    else if (next.state === "refused") logger.error(fields, "uplink refused by the central");
    else logger.warn(fields, "uplink cannot reach the central; readings stay in the local history meanwhile");
  };

  /**
   * Every answer the central gives that this site accepts (central-client.ts): the
   * last contact, and `connected` as soon as the link works again, not at the end
   * of a round that may take minutes of backlog (docs/fleet.md, "Sites"). Any
   * answer ends an outage (no answer, a 5xx); a refusal ends when the call refused
   * is answered (the session check, first in every round, after a refused check),
   * so a forward the central refuses round after round does not flap the state at
   * each round's first calls.
   */
  const answered = (call: string): void => {
    if (accepted === null) return;
    if (status.state === "connected" || failedCall === null || failedCall === call)
      become({ state: "connected", reason: null, ...accepted }, true);
    else status = { ...status, lastContactAt: clock.now() };
  };
  const sessionCall = `${edgeMessages.session.method} ${edgeMessages.session.path}`;
  // The session check's own answer is taken in check(), once its organisation and site are read.
  options.central.onAccepted((call) => {
    if (call !== sessionCall) answered(call);
  });

  const fail = (error: CentralCallError | null, next: Omit<UplinkStatus, "since" | "lastContactAt">) => {
    failedCall = error !== null && next.state === "refused" ? error.call : null;
    fresh = true;
    become(next, error !== null && error.failure.kind !== "network");
  };

  /** Asks the central about the token: the accepted session, or null (the state then says why). */
  const check = async (): Promise<{ organization: string; site: string } | null> => {
    try {
      const session = await options.central.call(edgeMessages.session);
      accepted = { organization: session.organization, site: session.site };
      answered(sessionCall);
      return accepted;
    } catch (error) {
      if (!(error instanceof CentralCallError)) throw error;
      accepted = null;
      fail(error, sessionRefusal(error));
      return null;
    }
  };

  /**
   * One round: the session check, then (accepted) forwarding. The state turns
   * connected at the first accepted answer (above); the round's end confirms it.
   */
  const round = async (): Promise<void> => {
    const session = await check();
    if (session === null) return;
    const forwarder = options.forwarder;
    // Whatever the central lost or kept meanwhile, a new connection starts from what it acknowledges.
    if (fresh) {
      forwarder?.reset();
      fresh = false;
    }
    try {
      await forwarder?.forward(() => !stopped);
    } catch (error) {
      if (!(error instanceof CentralCallError)) throw error;
      forwarder?.reset();
      fail(error, { state: error.refused ? "refused" : "unreachable", reason: error.message, ...session });
      return;
    }
    failedCall = null;
    become({ state: "connected", reason: null, ...session }, true);
  };

  // One check at a time, on a monotonic timer: a clock step neither skips nor repeats one.
  const loop = async () => {
    while (!stopped) {
      // round() handles every answer and network error itself; this guard keeps a surprise from ending the process.
      running = round().catch((error: unknown) =>
        fail(null, { state: "unreachable", reason: String(error), organization: null, site: null }),
      );
      await running;
      if (stopped) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.checkIntervalMs);
        stopTimer = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  };
  let stopTimer = () => {};
  void loop();

  return {
    status: () => status,
    async stop() {
      stopped = true;
      stopTimer();
      await running;
    },
  };
}

/**
 * The state a failed session check leaves: a token the central refuses (401, 403)
 * or an answer this site cannot read is refused (an operator must act); no answer
 * or any other status is an outage the site rides out.
 */
function sessionRefusal(error: CentralCallError): Omit<UplinkStatus, "since" | "lastContactAt"> {
  const failure = error.failure;
  const none = { organization: null, site: null };
  if (failure.kind === "network") return { state: "unreachable", reason: failure.reason, ...none };
  if (failure.kind === "unreadable") return { state: "refused", reason: error.message, ...none };
  if (failure.status === 401 || failure.status === 403) {
    const code = failure.problem?.code ?? `HTTP ${failure.status}`;
    const detail = failure.problem?.detail === undefined ? "" : `: ${failure.problem.detail}`;
    return { state: "refused", reason: `${code}${detail}`, ...none };
  }
  return { state: "unreachable", reason: `the central answered HTTP ${failure.status}`, ...none };
}
