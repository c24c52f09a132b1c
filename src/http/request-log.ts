/**
 * How loudly an answered request is logged. On a gateway polled by a SCADA client
 * every second, a line per request would be most of what reaches the journal (on
 * flash), so by default only refusals and server errors are logged; config
 * `api.log_requests: true` or FIELDHUB_LOG_REQUESTS=1 logs every request
 * (docs/config.md).
 */

export type RequestLogLevel = "debug" | "info" | "warn";

/** 401, 403 and 429: a client that cannot get in or is throttled is worth a line (docs/api.md sections 5 and 8). */
const refusals = new Set([401, 403, 429]);

export interface AnsweredRequest {
  /** The route matched, or what answered instead ("(no route)", "(refused before routing)"). */
  route: string;
  method: string;
  path: string;
  status: number;
}

export function requestLogLevel(answer: AnsweredRequest, logRequests: boolean): RequestLogLevel {
  const { route, status } = answer;
  if (status >= 500 || (refusals.has(status) && !expectedRefusal(answer))) return "warn";
  // Health checks and scrapes come every few seconds: debug even when requests are logged.
  if (!logRequests || route === "/healthz" || route === "/metrics") return "debug";
  return "info";
}

/**
 * A refusal that is the answer a client asks for, not a client failing: the admin
 * page asks `GET /admin/api/...` (`/me` first, at every load) to learn whether it
 * has a session, and shows the sign-in form on 401. A wrong password at
 * `POST /admin/api/login` is still a warning.
 */
function expectedRefusal({ method, path, status }: AnsweredRequest): boolean {
  return status === 401 && (method === "GET" || method === "HEAD") && path.startsWith("/admin/api/");
}

/** The config's switch, or FIELDHUB_LOG_REQUESTS=1 (or true) in the environment. */
export function requestLogsWanted(configured: boolean, env: Record<string, string | undefined> = process.env): boolean {
  const flag = env.FIELDHUB_LOG_REQUESTS?.toLowerCase();
  return configured || flag === "1" || flag === "true";
}
