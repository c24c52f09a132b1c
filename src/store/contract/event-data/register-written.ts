/**
 * `register.written` (added, docs/api.md section 9.2; docs/webhooks.md): every register
 * write attempt through the API, the admin page or the Modbus TCP server (each register
 * it covers whole), successful or not, as its audit
 * entry records it. Values are in engineering units.
 */
import { type Static, Type } from "@sinclair/typebox";
import { type RegisterWriteResult, registerWriteResults } from "../../../lib/register-write.ts";
import {
  type GatewayNames,
  gatewayData,
  gatewayFields,
  isoTime,
  literals,
  nullable,
  publicId,
  type RegisterNames,
} from "./fields.ts";

export const RegisterWrittenData = Type.Object(
  {
    /** The audit entry (`fieldhub writes list`). */
    id: publicId,
    ...gatewayFields,
    modbus_device_id: publicId,
    modbus_device_name: nullable(Type.String()),
    register_id: publicId,
    register_name: Type.String(),
    unit: nullable(Type.String()),
    /** `key:<key id>`, `user:<admin user name>` or `modbus:<client address>`. */
    actor: Type.String(),
    value_before: nullable(Type.Number()),
    value_asked: Type.Number(),
    result: literals(registerWriteResults),
    read_back: nullable(Type.Number()),
    detail: nullable(Type.String()),
    requested_at: isoTime,
    finished_at: isoTime,
  },
  { additionalProperties: false },
);
export type RegisterWrittenData = Static<typeof RegisterWrittenData>;

export interface RegisterWriteAttempt {
  auditId: string;
  gateway: GatewayNames;
  register: RegisterNames;
  actor: string;
  valueBefore: number | null;
  valueAsked: number;
  result: RegisterWriteResult;
  readBack: number | null;
  detail: string | null;
  requestedAt: number;
  finishedAt: number;
}

export function registerWritten(attempt: RegisterWriteAttempt) {
  const { register } = attempt;
  return {
    type: "register.written" as const,
    data: {
      id: attempt.auditId,
      ...gatewayData(attempt.gateway),
      modbus_device_id: register.modbusDeviceId,
      modbus_device_name: register.modbusDeviceName,
      register_id: register.id,
      register_name: register.name,
      unit: register.unit,
      actor: attempt.actor,
      value_before: attempt.valueBefore,
      value_asked: attempt.valueAsked,
      result: attempt.result,
      read_back: attempt.readBack,
      detail: attempt.detail,
      requested_at: new Date(attempt.requestedAt).toISOString(),
      finished_at: new Date(attempt.finishedAt).toISOString(),
    } satisfies RegisterWrittenData,
  };
}
