/**
 * Which stored register an imported row means: by `register_id`, or by gateway
 * serial + device name + register name (docs/history-io.md). A device without a
 * name matches a row whose device is empty or absent.
 */
import { RowError } from "./decode.ts";

export interface KnownRegister {
  id: number;
  uuid: string;
  gatewaySerial: string;
  deviceName: string | null;
  name: string;
}

export type RegisterLookup = (row: {
  registerId: string | null;
  gateway: string | null;
  device: string | null;
  register: string | null;
}) => number;

const nameKey = (gateway: string, device: string | null, register: string) =>
  `${gateway}\u0000${device ?? ""}\u0000${register}`;

export function registerLookup(registers: readonly KnownRegister[]): RegisterLookup {
  const byId = new Map<string, number>();
  const byNames = new Map<string, number>();
  for (const register of registers) {
    byId.set(register.uuid.toLowerCase(), register.id);
    byNames.set(nameKey(register.gatewaySerial, register.deviceName, register.name), register.id);
  }
  return (row) => {
    if (row.registerId !== null) {
      const id = byId.get(row.registerId.toLowerCase());
      if (id === undefined) throw new RowError(`unknown register_id ${row.registerId}`);
      return id;
    }
    if (row.gateway === null || row.register === null) {
      throw new RowError("names no register: give register_id, or gateway, device and register");
    }
    const id = byNames.get(nameKey(row.gateway, row.device, row.register));
    if (id === undefined) {
      throw new RowError(
        `unknown register: gateway ${JSON.stringify(row.gateway)}, device ${JSON.stringify(row.device ?? "")}, register ${JSON.stringify(row.register)}`,
      );
    }
    return id;
  };
}
