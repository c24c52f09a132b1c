/**
 * `fieldhub templates list|show`: the shipped device library (src/config/templates/), each
 * template with the manufacturer's document its registers come from. `show` finds a
 * template as a config's `template: { brand, model }` does, with the same suggestions.
 */
import { type DeviceTemplate, deviceTemplates, lookupTemplate, type TemplateRegister } from "../config/index.ts";
import { CommandError, parseCommandArgs, UsageError } from "./args.ts";
import { type CommandHelp, jsonOption } from "./help.ts";

export const templatesHelp: readonly CommandHelp[] = [
  {
    command: "templates list",
    arguments: "[--json]",
    summary:
      "List the shipped device templates: brand, model, kind, number of registers and the manufacturer's document (title and version) the registers come from.",
    options: [jsonOption],
  },
  {
    command: "templates show",
    arguments: "BRAND MODEL [--json]",
    summary:
      "Print one template: its source document, notes and every register (name, address, function code, type, byte order, unit, scale, description).",
    options: [jsonOption],
    notes:
      'BRAND and MODEL are spelt as in a config\'s `template: { brand, model }` (quote names with spaces: "Carlo Gavazzi"); an unknown one exits 1 with the closest names.',
  },
];

export function templatesCommand(argv: string[]): void {
  const [action, ...rest] = argv;
  const { values, positionals } = parseCommandArgs(rest, { json: { type: "boolean" } }, true);
  const json = values.json === true;
  if (action === "list") {
    if (positionals.length > 0) throw new UsageError("templates list takes no arguments");
    process.stdout.write(json ? `${JSON.stringify(deviceTemplates().map(summaryOf), null, 2)}\n` : listText());
    return;
  }
  if (action === "show") {
    const [brand, model, ...extra] = positionals;
    if (brand === undefined || model === undefined || extra.length > 0) {
      throw new UsageError("templates show takes a brand and a model");
    }
    const lookup = lookupTemplate({ brand, model });
    if (lookup.kind !== "found")
      throw new CommandError(lookup.kind === "unknown" ? lookup.message : "no such template");
    const { template } = lookup;
    process.stdout.write(json ? `${JSON.stringify(detailOf(template), null, 2)}\n` : showText(template));
    return;
  }
  throw new UsageError(action === undefined ? "templates needs an action" : `unknown templates action "${action}"`);
}

function summaryOf(template: DeviceTemplate) {
  return {
    brand: template.brand,
    model: template.model,
    kind: template.kind,
    registers: template.registers.length,
    source: template.source,
  };
}

function detailOf(template: DeviceTemplate) {
  return {
    ...summaryOf(template),
    byte_order: template.byteOrder,
    poll_interval_ms: template.pollIntervalMs,
    identify: template.identify ?? null,
    max_registers_per_request: template.maxRegistersPerRequest ?? null,
    notes: template.notes,
    registers: template.registers.map((register) => ({
      name: register.name,
      address: register.address,
      function_code: register.functionCode,
      data_type: register.dataType,
      byte_order: register.byteOrder ?? template.byteOrder,
      ...(register.bit === undefined ? {} : { bit: register.bit }),
      ...(register.length === undefined ? {} : { length: register.length }),
      unit: register.unit,
      scale_factor: register.scaleFactor,
      ...(register.scaleFactorRegister === undefined ? {} : { scale_factor_register: register.scaleFactorRegister }),
      ...(register.notImplemented === undefined ? {} : { not_implemented: register.notImplemented }),
      writable: register.writable ?? false,
      description: register.description,
      example: template.examples[register.name] ?? null,
    })),
  };
}

function sourceLine(template: DeviceTemplate): string {
  return `${template.source.title}, ${template.source.version}`;
}

/** Rows of cells as columns two spaces apart; the last column is not padded. */
function columns(rows: readonly (readonly string[])[]): string {
  const widths = (rows[0] ?? []).map((_, index) => Math.max(...rows.map((row) => (row[index] ?? "").length)));
  return rows
    .map((row) =>
      row
        .map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index] ?? 0)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

function listText(): string {
  const rows = deviceTemplates().map((t) => [t.brand, t.model, t.kind, String(t.registers.length), sourceLine(t)]);
  return `${columns([["BRAND", "MODEL", "KIND", "REGISTERS", "SOURCE"], ...rows])}\n${deviceTemplates().length} templates; \`fieldhub templates show BRAND MODEL\` prints one.\n`;
}

/** Where a register is read, with the type's detail: `float32 ABCD`, `bool bit 3`, `string x16`. */
function typeCell(register: TemplateRegister): string {
  if (register.dataType === "bool") return register.bit === undefined ? "bool" : `bool bit ${register.bit}`;
  if (register.dataType === "string") return `string x${register.length ?? 1}`;
  return register.dataType;
}

function byteOrderCell(template: DeviceTemplate, register: TemplateRegister): string {
  const wide = register.dataType !== "bool" && register.dataType !== "uint16" && register.dataType !== "int16";
  return wide || register.byteOrder !== undefined ? (register.byteOrder ?? template.byteOrder) : "-";
}

function scaleCell(register: TemplateRegister): string {
  if (register.scaleFactorRegister !== undefined) return `10^${register.scaleFactorRegister}`;
  return register.scaleFactor === null ? "-" : String(register.scaleFactor);
}

/** The description, with what the register adds to it: its write range, its "no value". */
function descriptionCell(register: TemplateRegister): string {
  const notes = [
    ...(register.writable === true ? [`writable ${register.min ?? ""}..${register.max ?? ""}`] : []),
    ...(register.notImplemented === undefined ? [] : [`no value: ${register.notImplemented}`]),
  ];
  return notes.length === 0 ? register.description : `${register.description} (${notes.join("; ")})`;
}

/** Which examples are the document's own readings (the rest are written in its scaling and word order). */
function documentExamplesLine(template: DeviceTemplate): string[] {
  const own = Object.entries(template.examples).filter(([, example]) => example.fromDocument !== undefined);
  if (own.length === 0) return [];
  return [
    `Examples from the document: ${own.map(([name, example]) => `${name} (${example.fromDocument})`).join(", ")}`,
  ];
}

function showText(template: DeviceTemplate): string {
  const { source } = template;
  const header = [
    `${template.brand} ${template.model} (${template.kind})`,
    `Source: ${source.title}, ${source.version}${source.url === undefined ? "" : `\n  ${source.url}`}`,
    ...(source.checkedAgainst === undefined ? [] : [`Checked against: ${source.checkedAgainst}`]),
    ...(source.checkedWith === undefined ? [] : [`Checked with: ${source.checkedWith}`]),
    ...documentExamplesLine(template),
    ...(template.identify === undefined
      ? []
      : [
          `Identifies as: vendor ${template.identify.vendor ?? template.brand}, product ${template.identify.product ?? template.model} (fieldhub discover)`,
        ]),
    `Byte order: ${template.byteOrder}; poll interval: ${template.pollIntervalMs} ms${template.maxRegistersPerRequest === undefined ? "" : `; at most ${template.maxRegistersPerRequest} registers per request`}`,
    `Notes: ${template.notes}`,
    "",
  ];
  const rows = template.registers.map((register) => [
    register.name,
    `${register.address} (0x${register.address.toString(16).padStart(4, "0")})`,
    String(register.functionCode),
    typeCell(register),
    byteOrderCell(template, register),
    register.unit ?? "-",
    scaleCell(register),
    descriptionCell(register),
  ]);
  const table = columns([["NAME", "ADDRESS", "FC", "TYPE", "ORDER", "UNIT", "SCALE", "DESCRIPTION"], ...rows]);
  return `${header.join("\n")}\n${table}\n${template.registers.length} registers.\n`;
}
