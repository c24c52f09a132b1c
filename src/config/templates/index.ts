/**
 * The shipped template library: register maps by brand and model. One module per
 * template; add a new one here and test/config/templates.test.ts checks it against the
 * config's own rules.
 */
import { carloGavazziEm24 } from "./carlo-gavazzi-em24.ts";
import { eastronSdm630 } from "./eastron-sdm630.ts";
import { froniusSymo } from "./fronius-symo.ts";
import { nibeS1255 } from "./nibe-s1255.ts";
import { siemensRdf302 } from "./siemens-rdf302.ts";
import type { DeviceTemplate } from "./types.ts";

export type { DeviceTemplate, TemplateRegister } from "./types.ts";

export const deviceTemplates: readonly DeviceTemplate[] = [
  eastronSdm630,
  carloGavazziEm24,
  nibeS1255,
  siemensRdf302,
  froniusSymo,
];

/** Exact brand and model, as the library spells them (the template id is derived from them). */
export function findTemplate(brand: string, model: string): DeviceTemplate | undefined {
  return deviceTemplates.find((template) => template.brand === brand && template.model === model);
}

export function templateLabel(template: Pick<DeviceTemplate, "brand" | "model">): string {
  return `${template.brand} ${template.model}`;
}
