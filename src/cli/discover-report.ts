/**
 * What `fieldhub discover` found, for people and for programs: a text report, one JSON
 * document, and a config whose `devices:` poll what was found (docs/discover.md).
 */
import { stringify } from "yaml";
import { matchTemplate } from "../config/templates/identify.ts";
import type { DeviceTemplate } from "../config/templates/index.ts";
import { templateLabel } from "../config/templates/index.ts";
import { describeException } from "../modbus/discover/device-identification.ts";
import { describeProbe, isDefaultProbe, type Probe, type ProbeAnswer, probeName } from "../modbus/discover/probe.ts";
import type { FoundUnit, ScanResult } from "../modbus/discover/scan.ts";
import type { SunSpecFound } from "../modbus/discover/sunspec-probe.ts";
import { type DiscoverTarget, describeDiscoverTarget, describeUnits } from "./discover-options.ts";

export interface DiscoveredUnit {
  unit: FoundUnit<SunSpecFound>;
  template: DeviceTemplate | undefined;
  /** The `devices:` entry that polls it. */
  device: Record<string, unknown>;
}

export function describeFound(found: readonly FoundUnit<SunSpecFound>[], target: DiscoverTarget): DiscoveredUnit[] {
  return found.map((unit) => {
    const template = matchTemplate([
      unit.identification ?? { vendor: null, product: null },
      { vendor: unit.sunspec?.common?.manufacturer ?? null, product: unit.sunspec?.common?.model ?? null },
    ]);
    return { unit, template, device: deviceEntry(unit, template, target) };
  });
}

/** A device entry `config check` accepts: its address, and its template, else its SunSpec models. */
function deviceEntry(
  unit: FoundUnit<SunSpecFound>,
  template: DeviceTemplate | undefined,
  target: DiscoverTarget,
): Record<string, unknown> {
  const label = deviceLabel(unit, template);
  const entry: Record<string, unknown> = {
    name: label === null ? `unit ${unit.unitId}` : `${label} (unit ${unit.unitId})`,
  };
  if (target.kind === "tcp") {
    entry.host = target.host;
    if (target.port !== 502) entry.port = target.port;
  }
  entry.slave_id = unit.unitId;
  if (template !== undefined) entry.template = { brand: template.brand, model: template.model };
  else if (unit.sunspec !== null && unit.sunspec.pollable.length > 0) {
    // The models found, and as many instances of a repeating group as the device has (docs/sunspec.md, "Registers").
    const { pollable, repeats } = unit.sunspec;
    entry.sunspec = repeats === null ? { models: pollable } : { models: pollable, repeats };
  }
  return entry;
}

/** What to call a device: its template, else the names it gives itself. */
function deviceLabel(unit: FoundUnit<SunSpecFound>, template: DeviceTemplate | undefined): string | null {
  if (template !== undefined) return templateLabel(template);
  const common = unit.sunspec?.common;
  const names = [
    [unit.identification?.vendor, unit.identification?.product],
    [common?.manufacturer, common?.model],
  ].map((pair) => pair.filter((part): part is string => typeof part === "string" && part !== "").join(" "));
  return names.find((name) => name !== "") ?? null;
}

/** The gateway's bus and a serial number for it, from the scanned link. */
function gatewayBus(target: DiscoverTarget): { bus: Record<string, unknown>; serial: string } {
  switch (target.kind) {
    case "tcp":
      return { bus: { type: "tcp" }, serial: `tcp-${target.host}-${target.port}` };
    case "rtu_over_tcp":
      return {
        bus: { type: "rtu_over_tcp", host: target.host, port: target.port },
        serial: `rtu-over-tcp-${target.host}-${target.port}`,
      };
    case "serial":
      return {
        bus: {
          type: "rtu",
          path: target.path,
          baud: target.baudRate,
          parity: target.parity,
          stop_bits: target.stopBits,
        },
        serial: `rtu-${target.path.split("/").pop() ?? "line"}`,
      };
  }
}

/** The whole config: one organisation and one gateway on the scanned link, with a device per unit found. */
export function discoveredConfigYaml(units: readonly DiscoveredUnit[], target: DiscoverTarget, at: Date): string {
  const { bus, serial } = gatewayBus(target);
  const config = {
    organizations: [{ key: "site", name: "My site" }],
    gateways: [
      {
        serial: serial.replace(/[^A-Za-z0-9._-]/gu, "-").slice(0, 64),
        name: `Found on ${describeDiscoverTarget(target)}`,
        bus,
        devices: units.map((unit) => unit.device),
      },
    ],
  };
  return `# Written by fieldhub discover at ${at.toISOString()} from ${describeDiscoverTarget(target)}.\n# Check it with: fieldhub config check FILE (docs/config.md).\n${stringify(config)}`;
}

export function discoveryJson(
  result: ScanResult<SunSpecFound>,
  units: readonly DiscoveredUnit[],
  context: {
    target: DiscoverTarget;
    unitIds: readonly number[];
    probes: readonly Probe[];
    timeoutMs: number;
    elapsedMs: number;
    configOut: string | null;
  },
): string {
  const { target } = context;
  return JSON.stringify({
    target:
      target.kind !== "serial"
        ? { kind: target.kind, host: target.host, port: target.port }
        : {
            kind: "serial",
            path: target.path,
            baud: target.baudRate,
            parity: target.parity,
            stop_bits: target.stopBits,
          },
    units: describeUnits(context.unitIds),
    units_tried: result.tried,
    probes: context.probes.map(probeName),
    timeout_ms: context.timeoutMs,
    worst_case_ms: context.unitIds.length * context.probes.length * context.timeoutMs,
    elapsed_ms: Math.round(context.elapsedMs),
    found: units.map(({ unit, template, device }) => ({
      unit_id: unit.unitId,
      probe: probeJson(unit.probe, unit.answer),
      identification: unit.identification,
      identification_missing: unit.identificationMissing,
      sunspec: unit.sunspec,
      template: template === undefined ? null : { brand: template.brand, model: template.model },
      device,
    })),
    garbled: result.garbled,
    config_out: context.configOut,
  });
}

export function discoveryText(
  result: ScanResult<SunSpecFound>,
  units: readonly DiscoveredUnit[],
  elapsedMs: number,
): string {
  const lines: string[] = [];
  for (const { unit, template } of units) {
    lines.push(`unit ${unit.unitId}: answers (${probeText(unit.probe, unit.answer)})`);
    const identity = unit.identification;
    if (identity === null) lines.push(`  identification (43/14): none (${unit.identificationMissing})`);
    else if (identity.vendor === null && identity.product === null && identity.revision === null) {
      lines.push("  identification (43/14): answered with empty names");
    } else {
      lines.push(
        `  identification (43/14): vendor ${identity.vendor ?? "-"}, product ${identity.product ?? "-"}, revision ${identity.revision ?? "-"}`,
      );
    }
    const sunspec = unit.sunspec;
    if (sunspec === null) lines.push("  SunSpec: none");
    else {
      const cut = sunspec.end === "end_marker" ? "" : ` (the chain was cut short: ${sunspec.end.replace("_", " ")})`;
      lines.push(`  SunSpec at ${sunspec.base}: ${sunspec.models.length} models${cut}`);
      for (const model of sunspec.models) {
        lines.push(
          `    ${model.id} ${model.name ?? "(unknown model)"}, at ${model.address}, ${model.length} registers`,
        );
      }
      const common = sunspec.common;
      if (common !== null) {
        lines.push(
          `    common: manufacturer ${common.manufacturer ?? "-"}, model ${common.model ?? "-"}, version ${common.version ?? "-"}, serial ${common.serial ?? "-"}`,
        );
      }
    }
    lines.push(`  template: ${template === undefined ? "none matches" : templateLabel(template)}`);
  }
  if (result.garbled.length > 0) {
    lines.push(
      `units whose answers came back broken twice: ${describeUnits(result.garbled)} (check the baud rate and parity, or two devices at one id)`,
    );
  }
  lines.push(
    `${units.length} unit${units.length === 1 ? "" : "s"} answered of ${result.tried} tried, in ${(elapsedMs / 1000).toFixed(1)} s`,
  );
  return `${lines.join("\n")}\n`;
}

/**
 * A found unit's probe in the JSON report: holding register 0's value or exception as
 * `{holding_register_0}` or `{exception, name}`; another probe's answer names it in `request`.
 */
function probeJson(probe: Probe, answer: ProbeAnswer): Record<string, unknown> {
  const shown = "value" in answer ? { value: answer.value } : "exception" in answer ? answer : {};
  if (!isDefaultProbe(probe)) return { request: probeName(probe), ...shown };
  return "value" in answer ? { holding_register_0: answer.value } : shown;
}

/** `holding register 0 = 630`, `input register 7: exception 2 (illegal data address)`, `device identification (43/14) answered`. */
function probeText(probe: Probe, answer: ProbeAnswer): string {
  if ("value" in answer) return `${describeProbe(probe)} = ${answer.value}`;
  if ("exception" in answer) return `${describeProbe(probe)}: ${describeException(answer.exception)}`;
  return `${describeProbe(probe)} answered`;
}

/** The `devices:` entries alone, for pasting into a gateway of an existing config. */
export function devicesYaml(units: readonly DiscoveredUnit[]): string {
  return units.length === 0 ? "" : stringify({ devices: units.map((unit) => unit.device) });
}
