/**
 * What an alert message says (docs/api.md section 2, Alert.message): the placeholders a rule's
 * message may use, how the engine fills them, and the messages written when the file
 * gives none. The config accepts exactly the placeholders the engine fills.
 */
import { conditionWords } from "./conditions.ts";
import type { Condition } from "./rule-model.ts";

export const messagePlaceholders = ["value", "unit", "threshold", "register", "device", "gateway"] as const;
export type MessagePlaceholder = (typeof messagePlaceholders)[number];

/** The values a message is filled with; null (no unit, say) leaves the placeholder empty. */
export type MessageFields = Record<MessagePlaceholder, string | number | null>;

export function fillMessage(template: string, fields: MessageFields): string {
  const known: Record<string, string | number | null> = fields;
  return template
    .replace(/\{(\w+)\}/g, (whole, name: string) => {
      const value = Object.hasOwn(known, name) ? known[name] : undefined;
      return value === undefined ? whole : value === null ? "" : String(value);
    })
    .replace(/ {2,}/g, " ")
    .trim();
}

/** The first placeholder of `template` the engine would not fill (it would be sent out as written). */
export function unknownPlaceholder(template: string): string | undefined {
  for (const match of template.matchAll(/\{(\w+)\}/g)) {
    const name = match[1] as string;
    if (!(messagePlaceholders as readonly string[]).includes(name)) return name;
  }
  return undefined;
}

/**
 * The message a rule gets when the file writes none. `{unit}` is left out for a
 * register without a unit, so the alert does not read `above 5 : 7`.
 */
export function defaultRuleMessage(register: string, condition: Condition, unit: string | null): string {
  const withUnit = (placeholder: string) => (unit === null || unit === "" ? placeholder : `${placeholder} {unit}`);
  return `${register} ${conditionWords(condition)} ${withUnit("{threshold}")}: ${withUnit("{value}")}`;
}

/** The offline detector's message (it has no template of its own). */
export function offlineMessage(gatewayName: string): string {
  return `Gateway ${gatewayName} is offline`;
}

/** The offline detector's message for one Modbus device behind an online gateway. */
export function deviceOfflineMessage(deviceName: string, gatewayName: string): string {
  return `Modbus device ${deviceName} on ${gatewayName} does not answer`;
}
