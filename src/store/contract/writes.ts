/**
 * The register writes domain of the store contract: the register a write targets,
 * and the audit of every attempt with its `register.written` event (values in
 * engineering units); and the audit of a write through a gateway's Modbus TCP server
 * that covers no configured register whole, by the device and what was sent.
 */
import type { RegisterWriteResult as WriteResult } from "../../lib/register-write.ts";
import type { NewEvent } from "./events.ts";

/** A register as a write needs it: its bounds, scaling and where it is. */
export type WriteTarget = {
  id: number;
  uuid: string;
  name: string;
  unit: string | null;
  modbusDeviceUuid: string;
  modbusDeviceName: string | null;
  /** The gateway's serial and name (the register.written event names them). */
  gatewaySerial: string;
  gatewayName: string;
  dataType: string;
  scaleFactor: number | null;
  isWritable: boolean;
  writeMin: number | null;
  writeMax: number | null;
};

export interface WriteAttempt {
  orgId: number;
  registerId: number;
  actor: string;
  valueBefore: number | null;
  valueAsked: number;
  result: WriteResult;
  readBack: number | null;
  detail: string | null;
  requestedAt: number;
  finishedAt: number;
}

/**
 * A write through a gateway's Modbus TCP server that covers no configured register
 * whole (part of a 32-bit value, an address fieldhub does not poll, a SunSpec point):
 * recorded by its Modbus device and the request as sent (docs/polling.md), with no
 * register, no value in engineering units and no event (`register.written` names a
 * register; docs/webhooks.md).
 */
export interface DeviceWriteAttempt {
  orgId: number;
  /** The Modbus device, by its internal id (`gateways.findModbusDeviceId`). */
  modbusDeviceId: number;
  actor: string;
  request: ModbusWriteRequest;
  result: WriteResult;
  detail: string | null;
  requestedAt: number;
  finishedAt: number;
}

/** A Modbus write request as a client sent it: function code 5, 6, 15 or 16, the first address, what it wrote (coils as 0 or 1). */
export interface ModbusWriteRequest {
  functionCode: number;
  address: number;
  values: number[];
}

export type WriteRecord = {
  id: string;
  organization: string;
  gatewaySerial: string;
  modbusDeviceId: string;
  modbusDeviceName: string | null;
  /** null for a device's write (DeviceWriteAttempt). */
  registerId: string | null;
  registerName: string | null;
  actor: string;
  valueBefore: number | null;
  /** Engineering units; null for a device's write, which asked for `request.values` instead. */
  valueAsked: number | null;
  /** A device's write: the request as sent; null for a register's write. */
  request: ModbusWriteRequest | null;
  result: WriteResult;
  readBack: number | null;
  detail: string | null;
  requestedAt: number;
  finishedAt: number;
};

export interface WriteStore {
  /** The active register of the gateway with that public id (stored lower case), or null. */
  target(gatewayId: number, registerUuid: string): Promise<WriteTarget | null>;
  /** Stores an attempt and, when given, its event (fanned out to subscribers), one transaction. Returns the attempt's id. */
  record(attempt: WriteAttempt, event: (id: string) => NewEvent): Promise<string>;
  /** Stores a device's write (no event). Returns the attempt's id. */
  recordDeviceWrite(attempt: DeviceWriteAttempt): Promise<string>;
  /** A later read-back of an attempt whose outcome was unknown (a timeout). */
  settleReadBack(id: string, readBack: number | null, detail: string): Promise<void>;
  /** Newest first; one organisation's or all. */
  list(filter: { orgId?: number; limit: number }): Promise<WriteRecord[]>;
  /** Deletes attempts requested before `cutoff`, at most `maxRows`; returns how many. */
  deleteOlderThan(cutoff: number, maxRows: number): Promise<number>;
}
