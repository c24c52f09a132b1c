/**
 * The register writes domain of the store contract: the register a write targets,
 * and the audit of every attempt with its `register.written` event (values in
 * engineering units).
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

export type WriteRecord = {
  id: string;
  organization: string;
  gatewaySerial: string;
  registerId: string;
  registerName: string;
  actor: string;
  valueBefore: number | null;
  valueAsked: number;
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
  /** A later read-back of an attempt whose outcome was unknown (a timeout). */
  settleReadBack(id: string, readBack: number | null, detail: string): Promise<void>;
  /** Newest first; one organisation's or all. */
  list(filter: { orgId?: number; limit: number }): Promise<WriteRecord[]>;
  /** Deletes attempts requested before `cutoff`, at most `maxRows`; returns how many. */
  deleteOlderThan(cutoff: number, maxRows: number): Promise<number>;
}
