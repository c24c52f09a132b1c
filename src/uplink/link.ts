/**
 * A site's link to its central (docs/fleet.md, "Sites"): every check interval the
 * site asks `GET {url}/edge/v1/session` with its edge token, outward only (sites
 * sit behind NAT). The answer is the link's state: connected, unreachable (the
 * site keeps polling and storing; its history is the buffer) or refused (a
 * revoked or unknown token, or a forward the central refuses: an operator must
 * act, so /healthz says so). While connected, each round forwards what is new.
 */
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import type { UplinkState } from "../lib/uplink-report.ts";
import { ForwardError, type Forwarder } from "./forwarder.ts";

export interface UplinkStatus {
  state: UplinkState;
  /** Why it is unreachable or refused (the central's error code and detail, or the network error). */
  reason: string | null;
  /** The organisation and site name the central knows this token by, once connected. */
  organization: string | null;
  site: string | null;
  /** When the central last answered (epoch ms), and when the state last changed. */
  lastContactAt: number | null;
  since: number;
}

export interface UplinkOptions {
  url: string;
  token: string;
  checkIntervalMs: number;
  clock: Clock;
  logger: Logger;
  /** How long one call may take before it counts as unreachable. */
  timeoutMs?: number;
  /** Forwarding (forwarder.ts), run after each accepted check; absent: the link is only checked. */
  forwarder?: Forwarder;
}

export interface Uplink {
  status(): UplinkStatus;
  stop(): Promise<void>;
}

/** How long one call to the central may take before it counts as unreachable. */
export const uplinkCallTimeoutMs = 10_000;

export function startUplink(options: UplinkOptions): Uplink {
  const { clock, logger } = options;
  const sessionUrl = `${options.url}/edge/v1/session`;
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

  /** Asks the central about the token: the accepted session, or null (the state then says why). */
  const check = async (): Promise<{ organization: string | null; site: string | null } | null> => {
    let response: Response;
    try {
      response = await fetch(sessionUrl, {
        headers: { authorization: `Bearer ${options.token}` },
        signal: AbortSignal.timeout(options.timeoutMs ?? uplinkCallTimeoutMs),
      });
    } catch (error) {
      become({ state: "unreachable", reason: describeNetworkError(error), organization: null, site: null }, false);
      return null;
    }
    const body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    if (response.ok) {
      return {
        organization: typeof body?.organization === "string" ? body.organization : null,
        site: typeof body?.site === "string" ? body.site : null,
      };
    } else if (response.status === 401 || response.status === 403) {
      const code = typeof body?.code === "string" ? body.code : `HTTP ${response.status}`;
      const detail = typeof body?.detail === "string" ? `: ${body.detail}` : "";
      become({ state: "refused", reason: `${code}${detail}`, organization: null, site: null }, true);
    } else {
      become(
        {
          state: "unreachable",
          reason: `the central answered HTTP ${response.status}`,
          organization: null,
          site: null,
        },
        true,
      );
    }
    return null;
  };

  /**
   * One round: the session check, then (accepted) forwarding. Connected means both
   * went through, so a forward the central refuses does not flap the state.
   */
  const round = async (): Promise<void> => {
    const session = await check();
    if (session === null) return;
    const forwarder = options.forwarder;
    // Whatever the central lost or kept meanwhile, a new connection starts from what it acknowledges.
    if (status.state !== "connected") forwarder?.reset();
    try {
      await forwarder?.forward(() => !stopped);
    } catch (error) {
      if (!(error instanceof ForwardError)) throw error;
      forwarder?.reset();
      become({ state: error.refused ? "refused" : "unreachable", reason: error.message, ...session }, true);
      return;
    }
    become({ state: "connected", reason: null, ...session }, true);
  };

  // One check at a time, on a monotonic timer: a clock step neither skips nor repeats one.
  const loop = async () => {
    while (!stopped) {
      // round() handles every answer and network error itself; this guard keeps a surprise from ending the process.
      running = round().catch((error: unknown) =>
        become({ state: "unreachable", reason: String(error), organization: null, site: null }, false),
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

function describeNetworkError(error: unknown): string {
  if (error instanceof Error && error.name === "TimeoutError") return "no answer in time";
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : error instanceof Error ? error.message : String(error);
}
