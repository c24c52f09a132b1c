/**
 * Every shipped template read through fieldhub's real read path: one Debian pymodbus
 * peer serves each template's example words (src/config/templates/, `examples`) at a
 * unit id of its own, one `fieldhub serve` polls every template as a device of one TCP
 * gateway, and GET /v1/devices/{id}/registers (docs/api.md section 4.5) must give each
 * register the example's decoded value (or text) and the template's unit. A template
 * register without an example fails here as in test/config/templates.test.ts.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DeviceTemplate, deviceTemplates } from "../../src/config/index.ts";
import { stableUuid } from "../../src/lib/ids.ts";
import { registerSpan } from "../../src/modbus/register-model.ts";
import { type RunningCli, serveArgs, servedUrl, startCli } from "../harness/cli.ts";
import { type PymodbusPeer, startPymodbusPeer } from "../harness/pymodbus.ts";
import { createReadKey, eventually, getData } from "../harness/served-api.ts";

const canRun = existsSync("/usr/bin/python3");
const serial = "TPL-LIB";
const gatewayId = stableUuid("gateway", serial);
/** The config's default max_gap: the peer answers zeros in gaps a request may read through. */
const maxGap = 8;

let workDir = "";
let server: RunningCli | undefined;
let peer: PymodbusPeer | undefined;
let baseUrl = "";
let key = "";

type Entry = { address: number; type: "raw"; value: number[] } | { address: number; value: boolean };

/** The peer's tables for one template: its examples' words at their addresses, zeros in short gaps. */
function unitTables(template: DeviceTemplate) {
  const words = { hr: new Map<number, number>(), ir: new Map<number, number>() };
  const bits = { co: new Map<number, boolean>(), di: new Map<number, boolean>() };
  for (const register of template.registers) {
    const example = template.examples[register.name];
    if (example === undefined) continue;
    if (register.functionCode <= 2) {
      (register.functionCode === 1 ? bits.co : bits.di).set(register.address, ((example.words[0] ?? 0) & 1) === 1);
      continue;
    }
    const table = register.functionCode === 3 ? words.hr : words.ir;
    const span = registerSpan({ ...register, length: register.length ?? null });
    // bool registers share a word: their bits are or-ed together.
    for (let i = 0; i < span; i += 1) {
      const word = example.words[i] ?? 0;
      const at = register.address + i;
      table.set(at, register.dataType === "bool" ? (table.get(at) ?? 0) | word : word);
    }
  }
  for (const table of [words.hr, words.ir]) {
    const addresses = [...table.keys()].sort((a, b) => a - b);
    for (let i = 1; i < addresses.length; i += 1) {
      const [from, to] = [addresses[i - 1] as number, addresses[i] as number];
      if (to - from - 1 <= maxGap) for (let at = from + 1; at < to; at += 1) table.set(at, 0);
    }
  }
  const asWords = (table: Map<number, number>): Entry[] =>
    [...table].map(([address, word]) => ({ address, type: "raw", value: [word] }));
  const asBits = (table: Map<number, boolean>): Entry[] => [...table].map(([address, value]) => ({ address, value }));
  return { hr: asWords(words.hr), ir: asWords(words.ir), co: asBits(bits.co), di: asBits(bits.di) };
}

const deviceName = (index: number) => `T${index + 1}`;

beforeAll(async () => {
  if (!canRun) return;
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-templates-"));
  const units = Object.fromEntries(
    deviceTemplates().map((template, index) => [String(index + 1), unitTables(template)]),
  );
  peer = await startPymodbusPeer({ tcp_port: 0, serial: null, units });
  const devices = deviceTemplates().map(
    (template, index) =>
      `      - { name: ${deviceName(index)}, host: 127.0.0.1, port: ${peer?.port}, slave_id: ${index + 1}, poll_interval_ms: 1000, timeout_ms: 2000, template: { brand: ${JSON.stringify(template.brand)}, model: ${JSON.stringify(template.model)} } }`,
  );
  writeFileSync(
    join(workDir, "fieldhub.yaml"),
    [
      "organizations: [{ key: lib, name: Library }]",
      "storage: { commit_interval_s: 1 }",
      "gateways:",
      `  - serial: ${serial}`,
      "    name: Template library",
      "    bus: { type: tcp }",
      "    devices:",
      ...devices,
      "",
    ].join("\n"),
  );
  const dataDir = join(workDir, "data");
  server = startCli(serveArgs(join(workDir, "fieldhub.yaml"), dataDir));
  baseUrl = await server.waitFor(servedUrl);
  key = await createReadKey(dataDir, "lib");
}, 30_000);

afterAll(async () => {
  await server?.stop();
  peer?.proc.kill();
  if (workDir !== "") rmSync(workDir, { recursive: true, force: true });
});

type ApiRegister = {
  modbus_device_name: string | null;
  name: string;
  unit: string | null;
  latest_value: number | null;
  latest_text: string | null;
};

test.skipIf(!canRun)(
  "every template register reads back its example's value and unit through serve and /v1 (needs python3-pymodbus)",
  async () => {
    const expected = deviceTemplates().flatMap((template, index) =>
      template.registers.map((register) => ({
        device: deviceName(index),
        template: `${template.brand} ${template.model}`,
        register,
        example: template.examples[register.name],
      })),
    );
    const missing = expected
      .filter((row) => row.example === undefined)
      .map((row) => `${row.template} ${row.register.name}`);
    expect(missing).toEqual([]);

    // Asked until every register has been read once (each device's first cycle); if some
    // never are, the comparison below names them.
    const read = () => getData<ApiRegister[]>(baseUrl, key, `/v1/devices/${gatewayId}/registers`);
    const allRead = (rows: ApiRegister[]) =>
      rows.filter((r) => r.latest_value !== null || r.latest_text !== null).length === expected.length;
    const registers = await eventually(read, allRead, 20_000).catch(read);
    expect(registers.length).toBe(expected.length);

    const wrong: string[] = [];
    for (const { device, template, register, example } of expected) {
      const served = registers.find((r) => r.modbus_device_name === device && r.name === register.name);
      const label = `${template} ${register.name}`;
      if (served === undefined || example === undefined) {
        wrong.push(`${label}: not served`);
        continue;
      }
      if (served.unit !== register.unit) wrong.push(`${label}: unit ${served.unit}, expected ${register.unit}`);
      const value = typeof example.value === "string" ? served.latest_text : served.latest_value;
      const close =
        typeof example.value === "number" && typeof value === "number"
          ? Math.abs(value - example.value) <= 1e-9 * Math.max(1, Math.abs(example.value))
          : value === example.value;
      if (!close) wrong.push(`${label}: read ${JSON.stringify(value)}, expected ${JSON.stringify(example.value)}`);
    }
    expect(wrong).toEqual([]);
  },
  40_000,
);
