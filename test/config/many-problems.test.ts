import { expect, test } from "bun:test";
import { formatProblems, parseConfig } from "../../src/config/index.ts";

// Every element has something wrong; none of them may hide another's problems.
const badFile = `
server:
  port: 70000
  hots: 0.0.0.0
retention:
  readings_days: forever
organizations:
  - key: acme
    name: Acme
    customers:
      - key: north
        name: North
      - key: north
        name: North again
  - key: Beta
    id: 1234
gateways:
  - serial: FH-1
    name: Greenhouse 1
    organization: acme
    customer: south
    bus: { type: tcp }
    devices:
      - name: Climate
        slave_id: 1
        registers:
          - name: temperature
            adress: 0
            data_type: int17
          - name: temperature
            address: 1
            data_type: int16
      - name: Meter
        host: 10.0.0.6
        slave_id: 300
  - serial: FH-1
    name: Boiler room
    organization: acme
    bus:
      type: rtu
      baud: 9601
    devices:
      - slave_id: 1
        host: 10.0.0.7
  - serial: FH 3
    organization: acmee
    bus: { type: can }
`;

test("a file with many problems lists every one of them, in file order", () => {
  const result = parseConfig(badFile);
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.problems.map((p) => p.path)).toEqual([
    "server.port",
    "server.hots",
    "retention.readings_days",
    "organizations[0].customers[1].key",
    "organizations[1].key",
    "organizations[1].name",
    "organizations[1].id",
    "gateways[0].customer",
    "gateways[0].devices[0].host",
    "gateways[0].devices[0].registers[0].address",
    "gateways[0].devices[0].registers[0].adress",
    "gateways[0].devices[0].registers[0].data_type",
    "gateways[0].devices[0].registers[1].name",
    "gateways[0].devices[1].slave_id",
    "gateways[1].serial",
    "gateways[1].bus.path",
    "gateways[1].bus.baud",
    "gateways[1].devices[0].host",
    "gateways[2].serial",
    "gateways[2].name",
    "gateways[2].organization",
    "gateways[2].bus.type",
  ]);
  // No path twice: a union failure is one problem, not one per variant.
  expect(new Set(result.problems.map((p) => p.path)).size).toBe(result.problems.length);
});

test("formatProblems writes one `<path>: <message>` line per problem", () => {
  const result = parseConfig(badFile);
  if (result.ok) throw new Error("expected problems");
  const lines = formatProblems(result.problems).split("\n");
  expect(lines.length).toBe(result.problems.length);
  expect(lines).toContain('gateways[1].serial: duplicate serial "FH-1" (also at gateways[0].serial)');
  expect(lines).toContain('gateways[0].customer: names customer "south", which organisation "acme" does not have');
  expect(lines).toContain(
    'gateways[0].devices[0].registers[0].adress: unknown field "adress" (did you mean "address"?)',
  );
  expect(lines).toContain(
    "gateways[1].devices[0].host: is only allowed when bus.type is tcp (this gateway's bus is rtu)",
  );
  expect(lines).toContain('gateways[2].bus.type: must be one of tcp, rtu, rtu_over_tcp; got "can"');
});

test("formatProblems writes a whole-file problem as its message alone", () => {
  expect(
    formatProblems([
      { path: "", message: "YAML syntax error at line 1, column 2: x" },
      { path: "server.port", message: "is required" },
    ]),
  ).toBe("YAML syntax error at line 1, column 2: x\nserver.port: is required");
});
