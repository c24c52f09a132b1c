/**
 * What every /v1 request passes before routing (docs/api.md sections 5, 7 and 8): a
 * request id, the API key, the rate limit, and the read-only rule. It runs before
 * the router so that unknown paths and write methods get the same treatment.
 */

import { apiKeyStatus } from "../lib/api-keys.ts";
import { CodedError } from "../lib/errors.ts";
import { newRequestId } from "../lib/ids.ts";
import type { KeyForRequest } from "../store/contract/keys.ts";
import { type RateDecision, rateLimitHeaders, type StoreRateLimiter } from "./rate-limit.ts";

export interface RequestState {
  requestId: string;
  /** Headers every response to this request carries, errors included. */
  headers: Record<string, string>;
  principal: KeyForRequest | null;
  /** Monotonic time the request arrived (lib/clock.ts): its duration survives a clock step. */
  startedAt: number;
  /** The status answered, for the request log (Elysia's `set.status` misses finished responses). */
  status: number;
}

export interface GateDeps {
  lookupKey(key: string): Promise<KeyForRequest | null>;
  limiter: StoreRateLimiter;
  now(): number;
  /** Notes a request that a valid key passed with (GET /admin/api/keys shows `last_used_at`). */
  recordKeyUse?(keyId: string, now: number): Promise<void>;
  /** Requests per minute of a key that sets no limit of its own (docs/api.md section 8: 100). */
  defaultLimitPerMinute: number;
}

const readMethods = new Set(["GET", "HEAD", "OPTIONS"]);
const bearerPattern = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;
const registerWritePath = /^\/v1\/devices\/[^/]+\/registers\/[^/]+$/;

function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const query = url.indexOf("?", start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}

export function newRequestState(startedAt: number): RequestState {
  const requestId = newRequestId();
  return { requestId, headers: { "x-request-id": requestId }, principal: null, startedAt, status: 200 };
}

/**
 * Authenticates and counts the request; throws a CodedError for the problem
 * response. The rate-limit headers are on `state.headers` whatever the outcome.
 */
export async function passApiGate(
  deps: GateDeps,
  state: RequestState,
  request: Request,
  clientAddress: string,
): Promise<void> {
  // Requests without a usable key are counted per client address (docs/api.md section 8).
  // An address that has used up that allowance this minute is refused before its
  // key is even looked up: otherwise the 401 would be decided first and guessing
  // would never be throttled.
  const anonymous = `anon:${clientAddress}`;
  if (await deps.limiter.exhausted(anonymous, deps.defaultLimitPerMinute)) {
    const decision = await deps.limiter.take(anonymous, deps.defaultLimitPerMinute);
    Object.assign(state.headers, rateLimitHeaders(decision));
    throw rateLimited(decision);
  }
  const authorization = request.headers.get("authorization");
  const principal = authorization === null ? null : await deps.lookupKey(bearerPattern.exec(authorization)?.[1] ?? "");
  const failure = authFailure(authorization, principal, deps.now());

  const decision =
    failure !== null || principal === null
      ? await deps.limiter.take(anonymous, deps.defaultLimitPerMinute)
      : await deps.limiter.take(
          principal.kind === "sandbox" ? `key:${principal.id}:${clientAddress}` : `key:${principal.id}`,
          principal.rateLimitPerMinute ?? deps.defaultLimitPerMinute,
        );
  Object.assign(state.headers, rateLimitHeaders(decision));

  if (failure !== null) throw failure;
  // A use the store does not take now is noted with a later request (KeyStore.recordUse).
  if (principal !== null) deps.recordKeyUse?.(principal.id, deps.now()).catch(ignoreUnrecordedUse);
  if (!decision.allowed) throw rateLimited(decision);
  state.principal = principal;
  // The register write is routed: its controller decides write_not_enabled per organisation.
  if (!readMethods.has(request.method) && !(request.method === "PUT" && registerWritePath.test(pathOf(request.url)))) {
    throw new CodedError(
      "write_not_enabled",
      "This API is read-only: writing registers is not enabled for this organisation.",
    );
  }
}

/**
 * The rate-limit headers of a request that is refused before the gate runs
 * (an unrouted path outside /v1 that began as one): the unauthenticated bucket
 * of its address, as it stands, without counting the request.
 */
export async function anonymousRateHeaders(deps: GateDeps, clientAddress: string): Promise<Record<string, string>> {
  return rateLimitHeaders(await deps.limiter.peek(`anon:${clientAddress}`, deps.defaultLimitPerMinute));
}

function ignoreUnrecordedUse(): void {}

function rateLimited(decision: RateDecision): CodedError {
  return new CodedError(
    "rate_limited",
    `More than ${decision.limit} requests in the current minute; retry in ${decision.resetSeconds} s.`,
  );
}

function authFailure(authorization: string | null, principal: KeyForRequest | null, now: number): CodedError | null {
  if (authorization === null || !bearerPattern.test(authorization)) {
    return new CodedError("missing_api_key", "Send the header `Authorization: Bearer <API_KEY>`.");
  }
  if (principal === null) return new CodedError("invalid_api_key", "The API key does not exist.");
  switch (apiKeyStatus(principal, now)) {
    case "revoked":
      return new CodedError("api_key_revoked", "The API key was revoked.");
    case "expired":
      return new CodedError("api_key_expired", "The API key passed its expiry date.");
    case "active":
      return null;
  }
}

export function requireScope(principal: KeyForRequest | null, scope: string): KeyForRequest {
  if (principal === null) throw new CodedError("missing_api_key");
  if (!principal.scopes.includes(scope)) {
    throw new CodedError("insufficient_scope", `This endpoint needs the scope "${scope}".`);
  }
  return principal;
}
