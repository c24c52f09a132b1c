/**
 * A publisher's own position in the event outbox, on both engines (engines.ts;
 * src/store/events.ts: eventsAfter, countAfter, positionOf, savePosition), as the MQTT
 * publisher uses it (docs/mqtt.md, "Events").
 */
import { expect, test } from "bun:test";
import { sampleEvent } from "../../harness/events.ts";
import { describeOnBothEngines } from "./engines.ts";

const t0 = Date.UTC(2026, 0, 5, 12);

describeOnBothEngines("outbox positions", t0, (opened) => {
  test("a first ask starts at the end; events after it come in order, every organisation's, once the position moves", async () => {
    const { outbox, organizations } = opened();
    const orgId = (await organizations.list())[0]?.id ?? 0;
    const recorded = [];
    for (let i = 0; i < 3; i++) recorded.push(await outbox.record(sampleEvent("device.offline", orgId, t0 + i)));
    const start = await outbox.positionOf("mqtt");
    expect(start).toBe(recorded[2]?.eventId ?? -1);
    // Asked again, the same: the first ask kept it.
    for (let i = 3; i < 5; i++) recorded.push(await outbox.record(sampleEvent("device.online", orgId, t0 + i)));
    expect(await outbox.positionOf("mqtt")).toBe(start);

    const after = await outbox.eventsAfter(start, 10);
    expect(after.map((event) => [event.id, event.messageId, event.orgId, event.type])).toEqual(
      recorded.slice(3).map((event) => [event.eventId, event.messageId, orgId, "device.online"]),
    );
    expect(after[0]?.occurredAt).toBe(t0 + 3);
    expect((await outbox.eventsAfter(start, 1)).length).toBe(1);
    // The backlog after a position, counted up to a cap.
    expect(await outbox.countAfter(start, 100)).toBe(2);
    expect(await outbox.countAfter(start, 1)).toBe(1);
    expect(await outbox.countAfter(recorded[4]?.eventId ?? 0, 100)).toBe(0);

    await outbox.savePosition("mqtt", after[0]?.id ?? 0);
    expect(await outbox.positionOf("mqtt")).toBe(after[0]?.id ?? -1);
    const rest = await outbox.eventsAfter(await outbox.positionOf("mqtt"), 10);
    expect(rest.map((event) => event.id)).toEqual([after[1]?.id ?? -1]);
    // Another publisher has its own position.
    expect(await outbox.positionOf("other")).toBe(recorded[4]?.eventId ?? -1);
    expect(await outbox.positionOf("mqtt")).toBe(after[0]?.id ?? -1);
  });
});
