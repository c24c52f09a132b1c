/**
 * A write audit row as both engines select it (the request of a device's write in
 * three columns, its values as JSON text), and the record the contract gives.
 */
import type { WriteRecord } from "../contract/writes.ts";

export type StoredWriteRow = Omit<WriteRecord, "request"> & {
  functionCode: number | null;
  address: number | null;
  valuesWritten: string | null;
};

export function writeRecordOf(row: StoredWriteRow): WriteRecord {
  const { functionCode, address, valuesWritten, ...record } = row;
  const request =
    functionCode === null || address === null || valuesWritten === null
      ? null
      : { functionCode, address, values: JSON.parse(valuesWritten) as number[] };
  return { ...record, request };
}
