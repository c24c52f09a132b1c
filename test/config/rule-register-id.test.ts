/** A rule names its register by name or by id (the register's written or derived id). */
import { expect, test } from "bun:test";
import { parseConfig } from "../../src/config/index.ts";
import { stableUuid } from "../../src/lib/ids.ts";

const file = (register: string) => `
organizations: [{ key: a, name: A }]
gateways:
  - serial: G1
    name: G
    bus: { type: tcp }
    devices:
      - name: M
        slave_id: 1
        host: 10.0.0.1
        registers:
          - { name: t, address: 0, data_type: int16 }
          - { name: u, address: 1, data_type: int16, id: 0b7e6a8c-3f1d-4f2a-9c55-2d1e8b7a6c40 }
rules:
  - { name: R, gateway: G1, device: M, register: "${register}", condition: gt, threshold: 1 }
`;

function ruleRegister(register: string): string {
  const result = parseConfig(file(register));
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.config.rules[0]?.registerId ?? "";
}

test("by name, by derived id and by written id (any letter case) it is the same register", () => {
  const derived = stableUuid("register", "G1", "M", "t");
  expect(ruleRegister("t")).toBe(derived);
  expect(ruleRegister(derived)).toBe(derived);
  expect(ruleRegister("0B7E6A8C-3F1D-4F2A-9C55-2D1E8B7A6C40")).toBe("0b7e6a8c-3f1d-4f2a-9c55-2d1e8b7a6c40");
});

test("an id the device does not have is refused with the path", () => {
  const result = parseConfig(file("00000000-0000-0000-0000-000000000000"));
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.problems).toEqual([
    {
      path: "rules[0].register",
      message: 'names register "00000000-0000-0000-0000-000000000000", which device "M" does not have',
    },
  ]);
});
