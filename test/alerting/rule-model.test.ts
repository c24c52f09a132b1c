import { describe, expect, test } from "bun:test";
import { hysteresisConditions, isCleared, isMet } from "../../src/alerting/conditions.ts";
import { defaultRuleMessage, fillMessage, messagePlaceholders, offlineMessage } from "../../src/alerting/messages.ts";
import { hysteresisProblem, messageProblem } from "../../src/alerting/rule-checks.ts";
import { conditions } from "../../src/alerting/rule-model.ts";

describe("conditions", () => {
  test("only the one-sided conditions have a hysteresis band", () => {
    expect(hysteresisConditions).toEqual(["gt", "gte", "lt", "lte"]);
    for (const condition of conditions) {
      expect(hysteresisProblem(condition, 2) === undefined).toBe(hysteresisConditions.includes(condition));
    }
  });

  test("a breach returns past the band, eq and ne as soon as they are not met", () => {
    expect(isMet("gt", 31, 30)).toBe(true);
    expect(isCleared("gt", 29, 30, 2)).toBe(false);
    expect(isCleared("gt", 28, 30, 2)).toBe(true);
    expect(isCleared("lte", 12, 10, 2)).toBe(false);
    expect(isCleared("lte", 12.5, 10, 2)).toBe(true);
    expect(isCleared("eq", 4, 5, 100)).toBe(true);
    expect(isCleared("ne", 5, 5, 100)).toBe(true);
  });
});

describe("messages", () => {
  const fields = { value: 7, unit: null, threshold: 5, register: "co2", device: "meter", gateway: "GW" };

  test("every placeholder the config accepts is one the engine fills", () => {
    for (const placeholder of messagePlaceholders) {
      expect(messageProblem(`{${placeholder}}`)).toBeUndefined();
      expect(fillMessage(`{${placeholder}}`, { ...fields, unit: "ppm" })).not.toContain("{");
    }
    expect(messageProblem("{valeu}")).toContain("{valeu}");
  });

  test("a default message leaves out {unit} when the register has none", () => {
    expect(fillMessage(defaultRuleMessage("co2", "gt", null), fields)).toBe("co2 above 5: 7");
    expect(defaultRuleMessage("co2", "gte", "ppm")).toBe("co2 at or above {threshold} {unit}: {value} {unit}");
    expect(offlineMessage("GW")).toBe("Gateway GW is offline");
  });
});
