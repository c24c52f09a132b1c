/**
 * A SunSpec device for tests: Debian's pymodbus (test/harness/pymodbus.ts) serving the
 * "SunS" marker at 40000 and models 1 (common), 103 (three-phase inverter) and 160 (MPPT,
 * two modules) with known raw values and scale factors, and one point not implemented
 * (103's VAr, 0x8000). The map is written here by hand from the SunSpec model definitions
 * (offsets from each model's id word), not from fieldhub's tables, so a test checks
 * fieldhub's tables and chain walk against it. `expectedValues` gives each point's
 * engineering value (raw x 10^sf), `expectedTexts` the common model's text.
 */
import { type PymodbusPeer, startPymodbusPeer } from "./pymodbus.ts";

export const sunSpecBase = 40000;
/** The chain: model id, the address of its id word, its length. */
export const sunSpecChain = [
  { id: 1, address: 40002, length: 66 },
  { id: 103, address: 40070, length: 50 },
  { id: 160, address: 40122, length: 48 },
] as const;
const endMarker = 40172;

export const expectedTexts = { "1.Mn": "fieldhub test", "1.Md": "SunSpec 103 sim", "1.Vr": "1.2.3", "1.SN": "SN-0042" };

/** Raw words by point, offsets from the model's id word. */
const model1 = { Mn: [2, 16], Md: [18, 16], Opt: [34, 8], Vr: [42, 8], SN: [50, 16] } as const;
const model103 = {
  A: 2,
  A_SF: 6,
  PhVphA: 10,
  V_SF: 13,
  W: 14,
  W_SF: 15,
  Hz: 16,
  Hz_SF: 17,
  VAr: 20,
  VAr_SF: 21,
  WH: 24,
  WH_SF: 26,
} as const;
/** 160: the scale factors in the fixed part, then 20 registers per module from offset 10. */
const model160 = { DCA_SF: 2, DCV_SF: 3, DCW_SF: 4, DCWH_SF: 5, N: 8, module: 10, moduleLength: 20 } as const;
const moduleOffsets = { ID: 0, IDStr: 1, DCA: 9, DCV: 10, DCW: 11, DCWH: 12 } as const;

/** Engineering values fieldhub must serve for these registers (null: not implemented). */
export const expectedValues: Record<string, number | null> = {
  "103.A": 21.5, // 2150 x 10^-2
  "103.PhVphA": 230.1, // 2301 x 10^-1
  "103.W": 1234.5, // 12345 x 10^-1
  "103.Hz": 50.02, // 5002 x 10^-2
  "103.VAr": null, // 0x8000: not implemented
  "103.WH": 9876000, // 9876 x 10^3
  "103.W_SF": -1,
  "160.N": 2,
  "160.module.1.DCA": 5.23, // 523 x 10^-2
  "160.module.1.DCV": 401.2, // 4012 x 10^-1
  "160.module.1.DCW": 2098, // 2098 x 10^0
  "160.module.1.DCWH": 1234560, // 123456 x 10^1
  "160.module.2.DCA": 4.98,
  "160.module.2.DCV": 398.7,
  "160.module.2.DCW": 1985,
  "160.module.2.DCWH": 1200000,
};

const int16 = (value: number) => value & 0xffff;

/** The device's holding registers from 40000 to the end marker, every one set (a read across any of them answers). */
export function sunSpecWords(): number[] {
  const words = new Array<number>(endMarker + 2 - sunSpecBase).fill(0);
  const at = (address: number, values: number[]) => {
    values.forEach((value, index) => {
      words[address - sunSpecBase + index] = value;
    });
  };
  const text = (value: string, length: number) => {
    const bytes = Buffer.alloc(length * 2);
    bytes.write(value, "latin1");
    return Array.from({ length }, (_, index) => bytes.readUInt16BE(index * 2));
  };
  at(sunSpecBase, [0x5375, 0x6e53]);
  for (const model of sunSpecChain) at(model.address, [model.id, model.length]);
  at(endMarker, [0xffff, 0]);

  const m1 = sunSpecChain[0].address;
  at(m1 + model1.Mn[0], text(expectedTexts["1.Mn"], model1.Mn[1]));
  at(m1 + model1.Md[0], text(expectedTexts["1.Md"], model1.Md[1]));
  at(m1 + model1.Opt[0], text("", model1.Opt[1]));
  at(m1 + model1.Vr[0], text(expectedTexts["1.Vr"], model1.Vr[1]));
  at(m1 + model1.SN[0], text(expectedTexts["1.SN"], model1.SN[1]));

  const m103 = sunSpecChain[1].address;
  at(m103 + model103.A, [2150]);
  at(m103 + model103.A_SF, [int16(-2)]);
  at(m103 + model103.PhVphA, [2301]);
  at(m103 + model103.V_SF, [int16(-1)]);
  at(m103 + model103.W, [12345]);
  at(m103 + model103.W_SF, [int16(-1)]);
  at(m103 + model103.Hz, [5002]);
  at(m103 + model103.Hz_SF, [int16(-2)]);
  at(m103 + model103.VAr, [0x8000]);
  at(m103 + model103.VAr_SF, [0]);
  at(m103 + model103.WH, [0, 9876]);
  at(m103 + model103.WH_SF, [3]);

  const m160 = sunSpecChain[2].address;
  at(m160 + model160.DCA_SF, [int16(-2)]);
  at(m160 + model160.DCV_SF, [int16(-1)]);
  at(m160 + model160.DCW_SF, [0]);
  at(m160 + model160.DCWH_SF, [1]);
  at(m160 + model160.N, [2]);
  const modules = [
    { DCA: 523, DCV: 4012, DCW: 2098, DCWH: 123456 },
    { DCA: 498, DCV: 3987, DCW: 1985, DCWH: 120000 },
  ];
  modules.forEach((values, index) => {
    const start = m160 + model160.module + index * model160.moduleLength;
    at(start + moduleOffsets.ID, [index + 1]);
    at(start + moduleOffsets.IDStr, text(`MPPT ${index + 1}`, 8));
    at(start + moduleOffsets.DCA, [values.DCA]);
    at(start + moduleOffsets.DCV, [values.DCV]);
    at(start + moduleOffsets.DCW, [values.DCW]);
    at(start + moduleOffsets.DCWH, [values.DCWH >>> 16, values.DCWH & 0xffff]);
  });
  return words;
}

/** The pymodbus spec of a SunSpec device at `unit` (other units of the peer, if any, are the caller's). */
export function sunSpecUnitSpec(): { hr: { address: number; type: "raw"; value: number[] }[] } {
  return { hr: [{ address: sunSpecBase, type: "raw", value: sunSpecWords() }] };
}

/** Starts a pymodbus peer on a free TCP port serving the SunSpec device at `unit` (default 1). */
export function startSunSpecDevice(unit = 1): Promise<PymodbusPeer> {
  return startPymodbusPeer({ tcp_port: 0, serial: null, units: { [String(unit)]: sunSpecUnitSpec() } });
}
