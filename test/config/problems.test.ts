import { describe, expect, test } from "bun:test";
import { stableUuid } from "../../src/lib/ids.ts";
import { at, expectOnlyProblem, minimalFile, problemsOf } from "./helpers.ts";

const device = (file: Record<string, unknown>) => at(file, "gateways", 0, "devices", 0);
const register = (file: Record<string, unknown>) => at(file, "gateways", 0, "devices", 0, "registers", 0);

describe("missing fields", () => {
  test("a required field", () => {
    const file = minimalFile();
    delete register(file).data_type;
    expectOnlyProblem(file, "gateways[0].devices[0].registers[0].data_type", "is required");
  });

  test("a required field written with no value", () => {
    expectOnlyProblem(
      "organizations:\n  - key: acme\n    name:\n",
      "organizations[0].name",
      "is required (it is written with no value)",
    );
  });

  test("organizations", () => {
    expectOnlyProblem({ gateways: [] }, "organizations", "is required");
    expectOnlyProblem({ organizations: [] }, "organizations", "must list at least one organisation");
  });

  test("the bus and its type", () => {
    const file = minimalFile();
    delete at(file, "gateways", 0).bus;
    expect(problemsOf(file).map((p) => [p.path, p.message])).toEqual([["gateways[0].bus", "is required"]]);
    const noType = minimalFile();
    at(noType, "gateways", 0).bus = {};
    expectOnlyProblem(noType, "gateways[0].bus.type", "is required");
  });

  test("an rtu bus without path", () => {
    const file = minimalFile();
    at(file, "gateways", 0).bus = { type: "rtu" };
    at(file, "gateways", 0).devices = [];
    expectOnlyProblem(file, "gateways[0].bus.path", "is required");
  });

  test("an empty file", () => {
    expectOnlyProblem("", "", "the file is empty; it needs at least an organizations list");
  });
});

describe("wrong types", () => {
  test("text where a number belongs", () => {
    expectOnlyProblem(
      { ...minimalFile(), server: { port: "8080" } },
      "server.port",
      'must be a whole number; got "8080"',
    );
  });

  test("a fraction where a whole number belongs", () => {
    const file = minimalFile();
    register(file).address = 1.5;
    expectOnlyProblem(file, "gateways[0].devices[0].registers[0].address", "must be a whole number; got 1.5");
  });

  test("a number where text belongs suggests quoting it", () => {
    expectOnlyProblem(
      "organizations: [{ key: acme, name: Acme }]\ngateways:\n  - { serial: 0012, name: G, bus: { type: tcp } }\n",
      "gateways[0].serial",
      "must be a string; got 12 (put it in quotes if it is text)",
    );
  });

  test("a boolean", () => {
    const file = minimalFile();
    register(file).writable = "yes";
    expectOnlyProblem(file, "gateways[0].devices[0].registers[0].writable", 'must be true or false; got "yes"');
  });

  test("a list where a mapping belongs, and the reverse", () => {
    expectOnlyProblem({ ...minimalFile(), server: [] }, "server", "must be a mapping (field: value); got a list");
    const file = minimalFile();
    device(file).registers = { name: "t" };
    expectOnlyProblem(file, "gateways[0].devices[0].registers", "must be a list; got a mapping");
  });

  test("the whole file is not a mapping", () => {
    expectOnlyProblem("- a\n- b\n", "", "must be a mapping (field: value); got a list");
  });
});

describe("out of range", () => {
  test.each([
    [{ server: { port: 0 } }, "server.port", "must be between 1 and 65535; got 0"],
    [{ retention: { readings_days: 3651 } }, "retention.readings_days", "must be between 1 and 3650; got 3651"],
    [{ api: { rate_limit_per_minute: 0 } }, "api.rate_limit_per_minute", "must be between 1 and 100000; got 0"],
  ])("%o", (patch, path, message) => {
    expectOnlyProblem({ ...minimalFile(), ...patch }, path, message);
  });

  test("gateway and device numbers", () => {
    const file = minimalFile();
    at(file, "gateways", 0).heartbeat_s = 4;
    at(file, "gateways", 0).signal_4g = 3;
    device(file).poll_interval_ms = 99;
    device(file).port = 65536;
    // File order: fields added to a built object are written after `devices`.
    expect(problemsOf(file).map((p) => `${p.path}: ${p.message}`)).toEqual([
      "gateways[0].devices[0].poll_interval_ms: must be between 100 and 86400000; got 99",
      "gateways[0].devices[0].port: must be between 1 and 65535; got 65536",
      "gateways[0].heartbeat_s: must be between 5 and 86400; got 4",
      "gateways[0].signal_4g: must be between -150 and 0; got 3",
    ]);
  });

  test("slave_id: 0..255 on TCP, 1..247 on RTU", () => {
    const tcp = minimalFile();
    device(tcp).slave_id = 256;
    expectOnlyProblem(tcp, "gateways[0].devices[0].slave_id", "must be between 0 and 255; got 256");
    const rtu = minimalFile();
    at(rtu, "gateways", 0).bus = { type: "rtu", path: "/dev/ttyS0" };
    at(rtu, "gateways", 0).devices = [{ slave_id: 0 }, { slave_id: 248 }, { slave_id: 247 }];
    expect(problemsOf(rtu)).toEqual([
      {
        path: "gateways[0].devices[0].slave_id",
        message: "must be between 1 and 247 when bus.type is rtu; got 0",
      },
      {
        path: "gateways[0].devices[1].slave_id",
        message: "must be between 1 and 247 when bus.type is rtu; got 248",
      },
    ]);
  });

  test("scale_factor must be a finite, non-zero number", () => {
    const zero = minimalFile();
    register(zero).scale_factor = 0;
    expectOnlyProblem(
      zero,
      "gateways[0].devices[0].registers[0].scale_factor",
      "must not be 0 (leave it out for no scaling)",
    );
    const infinite = minimalFile();
    register(infinite).scale_factor = Number.POSITIVE_INFINITY;
    expectOnlyProblem(infinite, "gateways[0].devices[0].registers[0].scale_factor", "must be a number; got .inf");
  });
});

describe("bad enums", () => {
  test("data_type collapses to one clear message", () => {
    const file = minimalFile();
    register(file).data_type = "int17";
    expectOnlyProblem(
      file,
      "gateways[0].devices[0].registers[0].data_type",
      'must be one of int16, uint16, int32, uint32, float32, int64, uint64, float64, bool, string; got "int17"',
    );
  });

  test("function_code, baud, parity, bus type", () => {
    const file = minimalFile();
    register(file).function_code = 5;
    const rtu = minimalFile();
    at(rtu, "gateways", 0).bus = {
      type: "rtu",
      path: "/dev/ttyS0",
      baud: 1234,
      parity: "od",
      data_bits: 9,
      stop_bits: 3,
    };
    at(rtu, "gateways", 0).devices = [];
    const unknownBus = minimalFile();
    at(unknownBus, "gateways", 0).bus = { type: "modbus" };
    expectOnlyProblem(file, "gateways[0].devices[0].registers[0].function_code", "must be one of 1, 2, 3, 4; got 5");
    expect(problemsOf(rtu)).toEqual([
      {
        path: "gateways[0].bus.baud",
        message: "must be one of 1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200; got 1234",
      },
      {
        path: "gateways[0].bus.parity",
        message: 'must be one of none, even, odd; got "od"',
      },
      {
        path: "gateways[0].bus.data_bits",
        message: "must be one of 7, 8; got 9",
      },
      {
        path: "gateways[0].bus.stop_bits",
        message: "must be one of 1, 2; got 3",
      },
    ]);
    expectOnlyProblem(unknownBus, "gateways[0].bus.type", 'must be one of tcp, rtu, rtu_over_tcp; got "modbus"');
  });
});

describe("patterns", () => {
  test("keys, serials and uuids", () => {
    const file = minimalFile();
    at(file, "organizations", 0).key = "Acme Inc";
    at(file, "gateways", 0).organization = "Acme Inc";
    at(file, "gateways", 0).serial = "FH 1";
    device(file).id = "not-a-uuid";
    expect(problemsOf(file)).toEqual([
      {
        path: "organizations[0].key",
        message: `must be 1 to 63 lowercase letters, digits, '_' or '-', starting with a letter or digit; got "Acme Inc"`,
      },
      {
        path: "gateways[0].serial",
        message: `must be 1 to 64 letters, digits, '.', '_' or '-'; got "FH 1"`,
      },
      {
        path: "gateways[0].devices[0].id",
        message: 'must be a UUID such as 0b7e6a8c-3f1d-4f2a-9c55-2d1e8b7a6c40; got "not-a-uuid"',
      },
      {
        path: "gateways[0].organization",
        message: expect.stringContaining("must be 1 to 63 lowercase"),
      },
    ]);
  });

  test("public_url", () => {
    const cases: [string, string][] = [
      ["box.local:8080", 'must be an absolute http(s) URL such as http://box.local:8080; got "box.local:8080"'],
      ["ftp://box.local", 'must be an absolute http(s) URL such as http://box.local:8080; got "ftp://box.local"'],
      ["http://box.local/", 'must not end with "/"; got "http://box.local/"'],
      ["http://box.local?x=1", 'must not have a query or fragment; got "http://box.local?x=1"'],
    ];
    for (const [url, message] of cases) {
      expectOnlyProblem({ ...minimalFile(), server: { public_url: url } }, "server.public_url", message);
    }
  });
});

describe("unknown fields", () => {
  test("a typo gets a suggestion", () => {
    const file = minimalFile();
    register(file).adress = 1;
    expect(problemsOf(file)).toEqual([
      {
        path: "gateways[0].devices[0].registers[0].adress",
        message: 'unknown field "adress" (did you mean "address"?)',
      },
    ]);
  });

  test("camelCase for snake_case gets a suggestion", () => {
    const file = minimalFile();
    device(file).slaveId = 1;
    expectOnlyProblem(file, "gateways[0].devices[0].slaveId", 'unknown field "slaveId" (did you mean "slave_id"?)');
  });

  test("with nothing close, the allowed fields are listed", () => {
    expectOnlyProblem(
      { ...minimalFile(), server: { colour: "red" } },
      "server.colour",
      'unknown field "colour" (allowed: host, port, public_url)',
    );
    expectOnlyProblem({ ...minimalFile(), alerts: [] }, "alerts", /^unknown field "alerts" \(allowed: server, /);
  });

  test("a field of another bus type", () => {
    const file = minimalFile();
    at(file, "gateways", 0).bus = { type: "tcp", baud: 9600 };
    expectOnlyProblem(file, "gateways[0].bus.baud", "is not used when type is tcp (only with rtu)");
  });
});

describe("duplicates", () => {
  test("organisation and customer keys", () => {
    expect(
      problemsOf({
        organizations: [
          {
            key: "acme",
            name: "A",
            customers: [
              { key: "north", name: "N" },
              { key: "north", name: "N2" },
            ],
          },
          { key: "acme", name: "B", customers: [{ key: "north", name: "N" }] },
        ],
      }),
    ).toEqual([
      {
        path: "organizations[0].customers[1].key",
        message: 'duplicate key "north" (also at organizations[0].customers[0].key)',
      },
      {
        path: "organizations[1].key",
        message: 'duplicate key "acme" (also at organizations[0].key)',
      },
    ]);
  });

  test("serials across the file", () => {
    const file = minimalFile();
    const gateways = file.gateways as Record<string, unknown>[];
    gateways.push({ ...gateways[0], devices: [] });
    expectOnlyProblem(file, "gateways[1].serial", 'duplicate serial "FH-1" (also at gateways[0].serial)');
  });

  test("device names within a gateway and register names within a device", () => {
    const file = minimalFile();
    at(file, "gateways", 0).devices = [
      { name: "Meter", host: "a", slave_id: 1 },
      {
        name: "Meter",
        host: "b",
        slave_id: 1,
        registers: [
          { name: "p", address: 0, data_type: "int16" },
          { name: "p", address: 1, data_type: "int16" },
        ],
      },
    ];
    expect(problemsOf(file)).toEqual([
      {
        path: "gateways[0].devices[1].name",
        message: 'duplicate name "Meter" (also at gateways[0].devices[0].name)',
      },
      {
        path: "gateways[0].devices[1].registers[1].name",
        message: 'duplicate name "p" (also at gateways[0].devices[1].registers[0].name)',
      },
    ]);
  });

  test("two unnamed devices at one address", () => {
    const file = minimalFile();
    at(file, "gateways", 0).devices = [
      { host: "a", slave_id: 1 },
      { host: "a", port: 502, slave_id: 1 },
    ];
    expectOnlyProblem(
      file,
      "gateways[0].devices[1]",
      "has the same address (a:502/1) as gateways[0].devices[0] and no name; give one of them a name",
    );
  });

  test("ids, written or derived, per kind", () => {
    const id = "0b7e6a8c-3f1d-4f2a-9c55-2d1e8b7a6c40";
    const file = minimalFile();
    at(file, "organizations", 0).id = id;
    at(file, "gateways", 0).id = id; // another kind: allowed
    const gateways = file.gateways as Record<string, unknown>[];
    gateways.push({
      serial: "FH-2",
      id: id.toUpperCase(),
      name: "G2",
      bus: { type: "tcp" },
    });
    expectOnlyProblem(file, "gateways[1].id", `duplicate id "${id}" (also at gateways[0].id)`);

    // An id copied from what fieldhub derives for another gateway.
    const copied = minimalFile();
    const fh1Id = stableUuid("gateway", "FH-1");
    (copied.gateways as Record<string, unknown>[]).push({
      serial: "FH-2",
      id: fh1Id,
      name: "G2",
      bus: { type: "tcp" },
    });
    expectOnlyProblem(copied, "gateways[1].id", `duplicate id "${fh1Id}" (also the id derived for gateways[0])`);
  });
});

describe("references", () => {
  const twoOrgs = () => {
    const file = minimalFile();
    file.organizations = [
      {
        key: "acme",
        name: "Acme",
        customers: [{ key: "north", name: "North" }],
      },
      { key: "beta", name: "Beta" },
    ];
    return file;
  };

  test("an organisation that is not defined", () => {
    const file = twoOrgs();
    at(file, "gateways", 0).organization = "acmee";
    expectOnlyProblem(
      file,
      "gateways[0].organization",
      'names organisation "acmee", which is not defined (did you mean "acme"?)',
    );
  });

  test("organization is required when there are several", () => {
    expectOnlyProblem(twoOrgs(), "gateways[0].organization", "is required when more than one organisation is defined");
  });

  test("a customer the organisation does not have", () => {
    const file = twoOrgs();
    at(file, "gateways", 0).organization = "acme";
    at(file, "gateways", 0).customer = "south";
    expectOnlyProblem(file, "gateways[0].customer", 'names customer "south", which organisation "acme" does not have');
    at(file, "gateways", 0).organization = "beta";
    at(file, "gateways", 0).customer = "north";
    expectOnlyProblem(file, "gateways[0].customer", 'names customer "north", which organisation "beta" does not have');
  });
});

describe("device fields that depend on the bus", () => {
  test("a tcp device without host", () => {
    const file = minimalFile();
    delete device(file).host;
    expectOnlyProblem(file, "gateways[0].devices[0].host", "is required when bus.type is tcp");
  });

  test("an rtu device with host and port", () => {
    const file = minimalFile();
    at(file, "gateways", 0).bus = { type: "rtu", path: "/dev/ttyUSB0" };
    device(file).port = 502;
    expect(problemsOf(file)).toEqual([
      {
        path: "gateways[0].devices[0].host",
        message: "is only allowed when bus.type is tcp (this gateway's bus is rtu)",
      },
      {
        path: "gateways[0].devices[0].port",
        message: "is only allowed when bus.type is tcp (this gateway's bus is rtu)",
      },
    ]);
  });

  test("an rtu_over_tcp device with host", () => {
    const file = minimalFile();
    at(file, "gateways", 0).bus = { type: "rtu_over_tcp", host: "converter" };
    expectOnlyProblem(
      file,
      "gateways[0].devices[0].host",
      "is only allowed when bus.type is tcp (this gateway's bus is rtu_over_tcp)",
    );
  });
});

describe("YAML syntax", () => {
  test("errors give the line and column of the mistake: an unclosed [ where it opens", () => {
    expectOnlyProblem(
      "organizations:\n  - key: acme\n    name: [Acme\nservers: {}\n",
      "",
      /^YAML syntax error at line 3, column 11: /,
    );
  });

  test("every syntax error is listed", () => {
    const problems = problemsOf("organizations:\n\t- key: a\nb: 'open\n");
    expect(problems.length).toBe(2);
    expect(problems[0]?.message).toMatch(/^YAML syntax error at line 2, column 1: Tabs/);
    expect(problems[1]?.message).toMatch(/^YAML syntax error at line \d+, column \d+: Missing closing 'quote/);
  });

  test("a key written twice", () => {
    expectOnlyProblem(
      "organizations: []\norganizations: []\n",
      "",
      "YAML syntax error at line 2, column 1: Map keys must be unique",
    );
  });

  test("an alias that loops does not throw", () => {
    expectOnlyProblem(
      "organizations: &orgs [*orgs]\n",
      "organizations[0]",
      "YAML error: an alias refers to the node that contains it; config data must not loop",
    );
  });

  test("a __proto__ key is an unknown field, not a prototype", () => {
    expectOnlyProblem(
      { ...minimalFile(), server: JSON.parse('{"__proto__": {"port": 1}}') },
      "server.__proto__",
      'unknown field "__proto__" (allowed: host, port, public_url)',
    );
  });

  test("an unresolved alias does not throw", () => {
    expectOnlyProblem("organizations: *orgs\n", "", /^YAML error: Unresolved alias/);
  });
});
