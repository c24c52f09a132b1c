/**
 * A SunSpec device for test/fixtures/pymodbus_server.py (a unit's holding registers):
 * the "SunS" marker at 40000, then the common model 1 (Mn, Md, Vr, SN), the three-phase
 * inverter model 103 and the MPPT model 160 with two modules, and the end marker. The
 * models' bodies hold zeros apart from model 160's module count: enough for a scan to
 * walk the chain and read the common model's text.
 */

/** Words of `text` in SunSpec's string layout: two characters a register, NUL padded. */
function textWords(text: string, registers: number): number[] {
  const bytes = Buffer.from(text.padEnd(registers * 2, "\0"), "latin1");
  return Array.from({ length: registers }, (_, i) => (bytes[2 * i]! << 8) | bytes[2 * i + 1]!);
}

export interface SunSpecScanDevice {
  manufacturer: string;
  model: string;
  version: string;
  serial: string;
}

export const sunSpecScanBase = 40000;

export function sunSpecScanDeviceRegisters(device: SunSpecScanDevice) {
  const common = [
    1,
    66,
    ...textWords(device.manufacturer, 16),
    ...textWords(device.model, 16),
    ...textWords("", 8),
    ...textWords(device.version, 8),
    ...textWords(device.serial, 16),
    1, // DA: the device's Modbus address
    0x8000, // Pad
  ];
  const inverter = [103, 50, ...new Array<number>(50).fill(0)];
  // Model 160: eight fixed points (N, the module count, at offset 8 from the id), then two modules of 20.
  const mppt = [160, 48, ...new Array<number>(48).fill(0)];
  mppt[8] = 2;
  const words = [0x5375, 0x6e53, ...common, ...inverter, ...mppt, 0xffff, 0];
  return [{ address: sunSpecScanBase, type: "raw", value: words }];
}
