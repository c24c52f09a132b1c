/**
 * Which shipped template a discovered device is (src/config/templates/identify.ts): the
 * names it gives itself against each template's `identify`, else its brand and model.
 */
import { describe, expect, test } from "bun:test";
import { matchTemplate } from "../../src/config/templates/identify.ts";
import { deviceTemplates } from "../../src/config/templates/index.ts";
import type { DeviceTemplate } from "../../src/config/templates/types.ts";

const label = (template: DeviceTemplate | undefined) =>
  template === undefined ? null : `${template.brand} ${template.model}`;

describe("matching a template", () => {
  test("vendor and product name the template's brand and model, whatever the case, spaces and punctuation", () => {
    expect(label(matchTemplate([{ vendor: "EASTRON", product: "SDM630-Modbus V2" }]))).toBe("Eastron SDM630");
    expect(label(matchTemplate([{ vendor: "Carlo Gavazzi Controls SpA", product: "EM24DINAV53DIS1X" }]))).toBe(
      "Carlo Gavazzi EM24",
    );
  });

  test("either source of names may match: 43/14 missing, the SunSpec common model's Mn and Md", () => {
    expect(
      label(
        matchTemplate([
          { vendor: null, product: null },
          { vendor: "Fronius", product: "Symo 10.0-3-M" },
        ]),
      ),
    ).toBe("Fronius Symo");
  });

  test("a vendor alone, a product alone or another vendor's product match nothing", () => {
    expect(matchTemplate([{ vendor: "Eastron", product: null }])).toBeUndefined();
    expect(matchTemplate([{ vendor: null, product: "SDM630" }])).toBeUndefined();
    expect(matchTemplate([{ vendor: "Acme", product: "SDM630" }])).toBeUndefined();
  });

  test("identify wins over brand and model, and the longest product name wins among matches", () => {
    const base = deviceTemplates()[0]!;
    const short: DeviceTemplate = { ...base, brand: "Acme", model: "M1" };
    const long: DeviceTemplate = {
      ...base,
      brand: "Acme",
      model: "M1 Pro",
      identify: { vendor: "ACME GmbH", product: "M1P" },
    };
    const library = [short, long];
    expect(matchTemplate([{ vendor: "Acme GmbH", product: "M1P-400" }], library)).toBe(long);
    expect(matchTemplate([{ vendor: "Acme", product: "M1P-400" }], library)).toBe(short);
    expect(matchTemplate([{ vendor: "Acme", product: "M1 Pro" }], library)).toBe(short);
  });
});
