import type { TObject } from "@sinclair/typebox";
import type { Clock } from "../../lib/clock.ts";
import type { DeviceHealthReader } from "../../lib/device-health.ts";
import { CodedError } from "../../lib/errors.ts";
import type { ModbusServerViewReader } from "../../lib/modbus-server-view.ts";
import type { RegisterWriter } from "../../lib/register-write.ts";
import type { AlertStore } from "../../store/contract/alerts.ts";
import type { GatewayStore } from "../../store/contract/gateways.ts";
import type { KeyForRequest } from "../../store/contract/keys.ts";
import type { ReadingStore } from "../../store/contract/readings.ts";
import type { RegisterStore } from "../../store/contract/registers.ts";
import type { Store } from "../../store/index.ts";
import type { RequestState } from "../api-gate.ts";
import { requireScope } from "../api-gate.ts";
import { expectation } from "../validation-message.ts";
import { repeatedParameter } from "./query.ts";
import { type OperationId, operationScopes } from "./scopes.ts";

/** What the /v1 controllers need; built once in the app. */
export interface V1Deps {
  store: Store;
  clock: Clock;
  gateways: GatewayStore;
  alerts: AlertStore;
  registers: RegisterStore;
  readings: ReadingStore;
  /** Each Modbus device's health as the pollers of this process see it. */
  deviceHealth: DeviceHealthReader;
  /** Each gateway's Modbus TCP server, as this process runs it. */
  modbusServerView: ModbusServerViewReader;
  cursorSecret: Buffer;
  stateOf(request: Request): RequestState;
  /** Register writes; absent in an app without pollers. */
  writeRegister?: RegisterWriter;
  /** A JSON success response with the request's headers (request id, rate limit). */
  json(request: Request, body: unknown): Response;
  /** The same for a body already encoded as JSON text. */
  jsonText(request: Request, text: string): Response;
}

/**
 * A route's `transform` hook, run before Elysia validates the query: checks the
 * operation's scope (scopes.ts) first, so a key without the scope hears 403 whatever it sent (docs/api.md
 * section 5.7); then what Elysia's coercion would let through: a repeated
 * parameter, or an integer written as `0x10`, `1e2` or ` 5`.
 */
export function guardRoute(deps: V1Deps, operationId: Exclude<OperationId, "introspect">, query?: TObject) {
  const scope = operationScopes[operationId];
  const integerParameters = Object.entries(query?.properties ?? {}).filter(
    ([, schema]) => (schema as { type?: string }).type === "integer",
  );
  return ({ request }: { request: Request }) => {
    requireScope(deps.stateOf(request).principal, scope);
    const queryStart = request.url.indexOf("?");
    if (queryStart < 0) return;
    const parameters = new URLSearchParams(request.url.slice(queryStart + 1));
    const repeated = repeatedParameter(parameters);
    if (repeated !== null) throw new CodedError("invalid_parameter", `${repeated}: given more than once.`);
    for (const [name, schema] of integerParameters) {
      const value = parameters.get(name);
      if (value !== null && !/^-?\d{1,16}$/.test(value)) {
        throw new CodedError(
          "invalid_parameter",
          `${name}: ${expectation(schema as Parameters<typeof expectation>[0]) ?? "must be an integer"}; got "${value.slice(0, 64)}".`,
        );
      }
    }
  };
}

export function principalOf(deps: V1Deps, request: Request): KeyForRequest {
  const principal = deps.stateOf(request).principal;
  if (principal === null) throw new Error("route reached without an authenticated key");
  return principal;
}
