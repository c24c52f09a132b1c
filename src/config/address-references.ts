/**
 * Addresses as vendor sheets write them (docs/config.md, "Addresses"). fieldhub's
 * `address` is the 0-based protocol address; many sheets number registers the
 * Modicon way instead (40001 is the first holding register, 30001 the first input
 * register, 10001 the first discrete input). Such a number passes the range check
 * and reads the wrong register at run time, so a register whose written address
 * falls in its own table's Modicon range is warned about, saying what the protocol
 * address would be. It is a warning, not a problem: some vendors really use protocol
 * addresses in those ranges (SMA's 30775, SunSpec points above 40000), and a device
 * that says `addresses: protocol` gets none.
 */
import type { FileIndex } from "./file-index.ts";
import type { Finding } from "./problems.ts";
import { defaults } from "./schema.ts";

/**
 * The first Modicon reference of each function code's table, and the table's name.
 * Coils (function code 1) are numbered from 00001, which cannot be told apart from a
 * protocol address, so they are not checked.
 */
const modiconTables: Readonly<Record<number, { first: number; table: string }>> = {
  2: { first: 10001, table: "discrete input" },
  3: { first: 40001, table: "holding register" },
  4: { first: 30001, table: "input register" },
};

/** A five-digit reference spans its table's first digit: 40001..49999. */
const referencesPerTable = 9999;

export function modiconAddressWarnings(index: FileIndex): Finding[] {
  const warnings: Finding[] = [];
  for (const gateway of index.gateways) {
    for (const device of gateway.devices) {
      if (device.record.addresses === "protocol") continue;
      for (const register of device.resolved.registers) {
        const written = register.entry?.record.address;
        if (register.entry === undefined || typeof written !== "number") continue;
        const functionCode = register.record.function_code ?? defaults.functionCode;
        const table = modiconTables[functionCode as number];
        if (table === undefined || written < table.first || written >= table.first + referencesPerTable) continue;
        warnings.push({
          path: [...register.entry.path, "address"],
          message:
            `${written} looks like a 1-based Modicon reference (${table.table} ${written - table.first + 1}); ` +
            `with function_code ${functionCode} the protocol address would be ${written - table.first}. ` +
            `If the vendor's sheet lists protocol addresses, say addresses: protocol on the device.`,
        });
      }
    }
  }
  return warnings;
}
