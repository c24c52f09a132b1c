/**
 * Which shipped template a device is, from the names it gives itself (docs/discover.md):
 * its vendor and product as function 43/14 or the SunSpec common model report them.
 * Both of a template's names (its `identify`, else its brand and model) must appear in
 * the device's, ignoring case, spaces and punctuation ("EASTRON" "SDM630-Modbus V2"
 * is the Eastron SDM630); of several matches the one with the longest product name wins
 * (SDM630MCT over SDM630).
 */
import { deviceTemplates } from "./index.ts";
import type { DeviceTemplate } from "./types.ts";

/** A device's own name for itself: vendor and product, either possibly unknown. */
export interface DeviceNames {
  vendor: string | null;
  product: string | null;
}

const folded = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/gu, "");

export function matchTemplate(
  names: readonly DeviceNames[],
  library: readonly DeviceTemplate[] = deviceTemplates(),
): DeviceTemplate | undefined {
  let best: { template: DeviceTemplate; productLength: number } | undefined;
  for (const template of library) {
    const vendor = folded(template.identify?.vendor ?? template.brand);
    const product = folded(template.identify?.product ?? template.model);
    if (vendor === "" || product === "") continue;
    const matches = names.some(
      (name) =>
        name.vendor !== null &&
        name.product !== null &&
        folded(name.vendor).includes(vendor) &&
        folded(name.product).includes(product),
    );
    if (matches && (best === undefined || product.length > best.productLength)) {
      best = { template, productLength: product.length };
    }
  }
  return best?.template;
}
