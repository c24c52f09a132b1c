import type { Clock } from "../../lib/clock.ts";
import type { Store } from "../../store/open.ts";
import type { ReadingQueries } from "../../store/readings.ts";
import type { RegisterQueries } from "../../store/registers.ts";
import { CodedError } from "../../lib/errors.ts";
import { requireScope } from "../api-gate.ts";
import { repeatedParameter } from "./query.ts";
import type { RequestState } from "../api-gate.ts";
import type { KeyForRequest } from "../../store/keys.ts";

/** What the /v1 controllers need; built once in the app. */
export interface V1Deps {
  store: Store;
  clock: Clock;
  registers: RegisterQueries;
  readings: ReadingQueries;
  cursorSecret: Buffer;
  stateOf(request: Request): RequestState;
}

/**
 * A route's `transform` hook: checks the scope before the query is validated, so
 * a key without the scope hears 403 whatever it sent (spec section 5.7).
 */
export function scopeCheck(deps: V1Deps, scope: string) {
  return ({ request }: { request: Request }) => {
    requireScope(deps.stateOf(request).principal, scope);
    const repeated = repeatedParameter(request.url);
    if (repeated !== null) throw new CodedError("invalid_parameter", `${repeated}: given more than once.`);
  };
}

export function principalOf(deps: V1Deps, request: Request): KeyForRequest {
  const principal = deps.stateOf(request).principal;
  if (principal === null) throw new Error("route reached without an authenticated key");
  return principal;
}
