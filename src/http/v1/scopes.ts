/**
 * The scope each /v1 operation needs, by operationId (docs/api.md section 4.1's operation
 * table, section 5.4); null: any valid key. Routes check it (`guardRoute`) and the
 * OpenAPI description states it (`security`), from this one table.
 */
import type { ApiScope } from "../../lib/api-keys.ts";

export const operationScopes = {
  introspect: null,
  listGateways: "devices:read",
  getGateway: "devices:read",
  listRegisters: "registers:read",
  listReadings: "registers:read",
  listAlerts: "alerts:read",
  writeRegister: "registers:write",
} as const satisfies Record<string, ApiScope | null>;

export type OperationId = keyof typeof operationScopes;

/** OpenAPI's security requirement for an operation: the bearer key, with the scope it must hold. */
export function securityOf(operationId: string): { bearerAuth: string[] }[] {
  const scope = (operationScopes as Record<string, ApiScope | null>)[operationId] ?? null;
  return [{ bearerAuth: scope === null ? [] : [scope] }];
}
