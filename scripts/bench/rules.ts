/**
 * Rule evaluation cost per reading with 10,000 rules configured against the same
 * readings with 10 rules, in the same run (target: within 1.2x). Each rule watches
 * its own register; the readings are for 10 registers that have a rule each, with
 * values that never breach (pure evaluation, no alert writes).
 *
 * Usage: bun scripts/bench/rules.ts [--rules 10000] [--readings 2000000]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createRulesEngine } from "../../src/alerting/engine.ts";
import type { RuleConfig } from "../../src/alerting/rule-model.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { stableUuid } from "../../src/lib/ids.ts";
import type { Inventory } from "../../src/lib/inventory.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import type { PolledValue } from "../../src/lib/polled-value.ts";
import { openStore } from "../../src/store/index.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { rules: { type: "string" }, readings: { type: "string" } },
});
const manyRules = Number(values.rules ?? 10_000);
const readingCount = Number(values.readings ?? 2_000_000);

// One gateway, 100 devices x 100 registers: a register per rule.
const registerCount = Math.max(manyRules, 10);
const devicesCount = Math.ceil(registerCount / 100);
const inventory: Inventory = {
  organizations: [
    {
      id: stableUuid("organization", "bench"),
      key: "bench",
      name: "Bench",
      writesEnabled: false,
      customers: [],
      gateways: [
        {
          id: stableUuid("gateway", "RULES-1"),
          serial: "RULES-1",
          name: "Rules bench",
          customer: null,
          heartbeatMs: 300_000,
          firmwareVer: null,
          ipEth: null,
          ipWifi: null,
          ip4g: null,
          signal4g: null,
          modbusDevices: Array.from({ length: devicesCount }, (_, device) => ({
            id: stableUuid("bench-device", String(device)),
            name: `device ${device}`,
            slaveId: (device % 247) + 1,
            protocol: "tcp" as const,
            ipAddress: "127.0.0.1",
            port: 502,
            pollIntervalMs: 1000,
            template: null,
            registers: Array.from({ length: 100 }, (_, index) => ({
              id: stableUuid("bench-register", String(device * 100 + index)),
              name: `r${index}`,
              address: index,
              functionCode: 3,
              dataType: "int16",
              unit: "°C",
              scaleFactor: 0.1,
              isWritable: false,
              writeMin: null,
              writeMax: null,
              description: null,
            })),
          })),
        },
      ],
    },
  ],
};
const registerIds =
  inventory.organizations[0]?.gateways[0]?.modbusDevices.flatMap((device) =>
    device.registers.map((register) => register.id),
  ) ?? [];

const dataDir = mkdtempSync(join(tmpdir(), "fieldhub-bench-rules-"));
const store = openStore(dataDir);
await store.inventory.sync(inventory, Date.now());

function rulesFor(count: number): RuleConfig[] {
  return registerIds.slice(0, count).map((registerId, index) => ({
    id: stableUuid("bench-rule", String(index)),
    name: `rule ${index}`,
    enabled: true,
    registerId,
    gatewayId: stableUuid("gateway", "RULES-1"),
    modbusDeviceId: stableUuid("bench-device", String(Math.floor(index / 100))),
    condition: index % 2 === 0 ? "gt" : "lt",
    threshold: index % 2 === 0 ? 1000 : -1000,
    severity: "warning",
    message: "{register} {value}",
    hysteresis: 1,
    forMs: 0,
  }));
}

// The same readings for both: 10 registers that have a rule in either configuration.
const watched = registerIds.slice(0, 10);
const readings: PolledValue[] = Array.from({ length: readingCount }, (_, index) => ({
  registerId: watched[index % watched.length] as string,
  ts: 1_800_000_000_000 + index,
  raw: (index * 7) % 5000,
}));

async function nsPerReading(ruleCount: number): Promise<number> {
  const engine = await createRulesEngine({
    store,
    clock: systemClock,
    logger: silentLogger(),
    rules: rulesFor(ruleCount),
    offlineDetector: {
      id: stableUuid("rule", "offline-detector"),
      name: "Gateway offline",
      enabled: false,
      severity: "critical",
      devices: false,
    },
    automations: [],
  });
  if (engine.ruleCount() !== ruleCount) throw new Error(`indexed ${engine.ruleCount()} rules, expected ${ruleCount}`);
  const batch = 100;
  for (let from = 0; from < 100_000; from += batch) await engine.evaluate(readings.slice(from, from + batch)); // warm up
  const began = performance.now();
  for (let from = 0; from < readings.length; from += batch) await engine.evaluate(readings.slice(from, from + batch));
  return ((performance.now() - began) * 1e6) / readings.length;
}

const rounds = 5;
const few: number[] = [];
const many: number[] = [];
for (let round = 0; round < rounds; round++) {
  few.push(await nsPerReading(10));
  many.push(await nsPerReading(manyRules));
}
await store.close();
rmSync(dataDir, { recursive: true, force: true });

const best = (list: number[]) => Math.min(...list);
const ratio = best(many) / best(few);
process.stdout.write(
  `${[
    `${readingCount.toLocaleString("en")} readings of 10 registers, evaluated in batches of 100, best of ${rounds} rounds each`,
    `  10 rules:      ${best(few).toFixed(1)} ns per reading (rounds: ${few.map((value) => value.toFixed(1)).join(", ")})`,
    `  ${manyRules.toLocaleString("en")} rules: ${best(many).toFixed(1)} ns per reading (rounds: ${many.map((value) => value.toFixed(1)).join(", ")})`,
    `  ratio: ${ratio.toFixed(2)}x (target <= 1.2x) ${ratio <= 1.2 ? "OK" : "MISSED"}`,
  ].join("\n")}\n`,
);
