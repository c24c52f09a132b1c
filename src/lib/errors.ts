/**
 * Error codes of docs/api.md section 7. One table drives the HTTP status, the problem
 * title and the docs page at {docs_url}/errors, so the three cannot drift apart.
 */
export const errorCatalog = {
  invalid_parameter: {
    status: 400,
    title: "Invalid parameter",
    when: "A query parameter is missing, malformed or out of range (includes a readings window over the allowed length, and a cursor that was tampered with or reused with other parameters).",
  },
  bad_request: {
    status: 400,
    title: "Bad request",
    when: "The request itself cannot be read (for example a malformed URL or header).",
  },
  missing_api_key: {
    status: 401,
    title: "Missing API key",
    when: "No `Authorization: Bearer <API_KEY>` header was sent.",
  },
  invalid_api_key: { status: 401, title: "Invalid API key", when: "The key does not exist." },
  api_key_revoked: { status: 401, title: "API key revoked", when: "The key was revoked." },
  api_key_expired: { status: 401, title: "API key expired", when: "The key passed its expiry date." },
  unauthorized: {
    status: 401,
    title: "Unauthorized",
    when: "Admin API only: no admin session cookie was sent, or the session was signed out, revoked or expired, or the username or password is wrong. Sign in again.",
  },
  forbidden: {
    status: 403,
    title: "Forbidden",
    when: "Admin API only: a change was sent without the session's `X-CSRF-Token` header (or with a wrong one), or the signed-in role may not make it (a viewer may only read).",
  },
  insufficient_scope: {
    status: 403,
    title: "Insufficient scope",
    when: "The key lacks the scope the endpoint needs; `detail` names the required scope.",
  },
  write_not_enabled: {
    status: 403,
    title: "Writing not enabled",
    when: "Writing registers is not enabled for the key's organisation (config `writes_enabled`), whatever the key's scopes; also any other write method (POST, PUT, PATCH, DELETE) sent to the read-only part of the API.",
  },
  not_found: {
    status: 404,
    title: "Not found",
    when: "The path does not exist, or the gateway, register or alert is not in the key's organisation.",
  },
  conflict: {
    status: 409,
    title: "Conflict",
    when: "The request conflicts with the current state. On the API: a register write did not take: the device refused it (its Modbus exception code is in `detail`), read back a different value, or the write could not be sent (no connection, no answer to the read before it). The audit holds the attempt.",
  },
  payload_too_large: {
    status: 413,
    title: "Payload too large",
    when: "Admin API only: the request body is larger than the operation takes (a few KB for login and setup). Nothing was read or changed.",
  },
  rate_limited: {
    status: 429,
    title: "Rate limited",
    when: "More requests than the key's limit in the current minute (100 by default; 60 per client address for the sandbox key). Wait `Retry-After` seconds.",
  },
  internal_error: {
    status: 500,
    title: "Internal error",
    when: "A failure on the service side. The `request_id` identifies the request in the service log. Answered 503 when the store is unavailable for a while (disk full, PostgreSQL away): nothing was changed; try again later. A register write whose device did not answer in time is answered 504 with this code: the outcome is unknown, the write was not retried, and the audit records what the device holds at the next read.",
  },
  store_unavailable: {
    status: 503,
    title: "Store unavailable",
    when: "Admin API only (and a site's calls to its central): the store is unavailable just now (disk full, another process holds its lock, a read-only store, PostgreSQL away or shutting down). Nothing was changed; try again later. `/healthz` names the condition. The `/v1` API answers the same condition `503 internal_error`.",
  },
} as const satisfies Record<string, { status: number; title: string; when: string }>;

export type ErrorCode = keyof typeof errorCatalog;
export const errorCodes = Object.keys(errorCatalog) as ErrorCode[];

const adminOnlyCodes = new Set<ErrorCode>(["unauthorized", "forbidden", "payload_too_large", "store_unavailable"]);
/** The codes of the /v1 API (docs/api.md section 7); the others belong to the admin API. */
export const apiErrorCodes = errorCodes.filter((code) => !adminOnlyCodes.has(code));

/** An error that carries a stable code; transports map it to their own form. */
export class CodedError extends Error {
  readonly code: ErrorCode;
  readonly detail: string | undefined;
  readonly headers: Record<string, string> | undefined;
  /** A status other than the code's own (504 for a register write that timed out). */
  readonly statusOverride: number | undefined;
  constructor(code: ErrorCode, detail?: string, headers?: Record<string, string>, status?: number) {
    super(detail ?? errorCatalog[code].title);
    this.name = "CodedError";
    this.code = code;
    this.detail = detail;
    this.headers = headers;
    this.statusOverride = status;
  }
  get status(): number {
    return this.statusOverride ?? errorCatalog[this.code].status;
  }
}
