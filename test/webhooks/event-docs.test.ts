/**
 * docs/webhooks.md, "Event types", held to the declarations of
 * src/store/contract/event-types.ts: every declared event type has a section,
 * each section's field table names exactly the fields of its types' schemas, and
 * every JSON example in the document that is a delivery validates against the
 * schema of its type.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TObject } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { type EventType, eventDataSchemas, isEventData } from "../../src/store/contract/event-types.ts";
import { repoRoot } from "../harness/cli.ts";

const document = readFileSync(join(repoRoot, "docs", "webhooks.md"), "utf8");
const declaredTypes = Object.keys(eventDataSchemas) as EventType[];
const isDeclared = (type: string): type is EventType => (declaredTypes as string[]).includes(type);

const eventTypesSection = (() => {
  const start = document.indexOf("\n## Event types\n");
  const end = document.indexOf("\n## ", start + 1);
  if (start < 0 || end < 0) throw new Error('docs/webhooks.md has no "## Event types" section');
  return document.slice(start, end);
})();

/** Each `### ...` part of the section: the event types its heading names, its table's fields, its examples. */
const documented = eventTypesSection
  .split("\n### ")
  .slice(1)
  .map((part) => {
    const [heading = "", ...lines] = part.split("\n");
    return {
      heading,
      types: [...heading.matchAll(/`([a-z_]+\.[a-z]+)`/g)].map((match) => match[1] as string),
      fields: lines.flatMap((line) => /^\| `([a-z_]+)` \|/.exec(line)?.[1] ?? []),
    };
  });

/** Every ```json block of the whole document that parses to a delivery (an envelope with type and data). */
const examples = [...document.matchAll(/^```json\n([\s\S]*?)^```/gm)].flatMap((block) => {
  const line = document.slice(0, block.index).split("\n").length + 1;
  try {
    const parsed = JSON.parse(block[1] ?? "") as { type?: unknown; data?: unknown };
    return typeof parsed.type === "string" && typeof parsed.data === "object" ? [{ line, ...parsed }] : [];
  } catch {
    return [];
  }
});

const fieldsOf = (type: EventType) => Object.keys((eventDataSchemas[type] as TObject).properties).sort();

test("every declared event type has its section, and every section names declared types only", () => {
  const documentedTypes = documented.flatMap((part) => part.types);
  expect([...documentedTypes].sort()).toEqual([...declaredTypes].sort());
  for (const part of documented) expect(part.types.length, part.heading).toBeGreaterThan(0);
});

describe("each section's table lists exactly its schema's fields", () => {
  for (const part of documented) {
    test(part.heading, () => {
      expect(part.fields.length).toBeGreaterThan(0);
      for (const type of part.types) {
        if (!isDeclared(type)) throw new Error(`${type} is not a declared event type`);
        expect([...part.fields].sort()).toEqual(fieldsOf(type));
      }
    });
  }
});

test("every event type has an example, and every example validates against its type's schema", () => {
  const exampleTypes = new Set(examples.map((example) => example.type as string));
  const groupsWithoutExample = documented.filter((part) => !part.types.some((type) => exampleTypes.has(type)));
  expect(groupsWithoutExample.map((part) => part.heading)).toEqual([]);
  for (const example of examples) {
    const where = `docs/webhooks.md:${example.line} (${String(example.type)})`;
    const type = String(example.type);
    if (!isDeclared(type)) throw new Error(`${where}: not a declared event type`);
    const errors = [...Value.Errors(eventDataSchemas[type], example.data)].map(
      (error) => `${error.path} ${error.message}`,
    );
    expect(errors, where).toEqual([]);
    expect(isEventData(type, example.data)).toBe(true);
  }
});

test("the check refuses data with a field missing or one not declared", () => {
  const device = examples.find((example) => example.type === "device.offline")?.data as Record<string, unknown>;
  expect(isEventData("device.offline", device)).toBe(true);
  const { serial: _serial, ...withoutSerial } = device;
  expect(isEventData("device.offline", withoutSerial)).toBe(false);
  expect(isEventData("device.offline", { ...device, gateway_name: "x" })).toBe(false);
});
