/**
 * The shipped template library: register maps by brand and model. The templates are
 * listed in library.ts, loaded on the first call here: a box whose config names no
 * template never loads them (docs/benchmarks.md, "Footprint").
 */
import type { DeviceTemplate } from "./types.ts";

export type { DeviceTemplate, TemplateRegister } from "./types.ts";

let library: readonly DeviceTemplate[] | null = null;

/** Every shipped template, by kind: energy meters, PV and hybrid inverters, batteries, heat pumps, climate controllers. */
export function deviceTemplates(): readonly DeviceTemplate[] {
  if (library === null) {
    const { templateLibrary } = require("./library.ts") as typeof import("./library.ts");
    library = templateLibrary;
  }
  return library;
}

/** Exact brand and model, as the library spells them (the template id is derived from them). */
export function findTemplate(brand: string, model: string): DeviceTemplate | undefined {
  return deviceTemplates().find((template) => template.brand === brand && template.model === model);
}

export function templateLabel(template: Pick<DeviceTemplate, "brand" | "model">): string {
  return `${template.brand} ${template.model}`;
}
