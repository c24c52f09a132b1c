/**
 * The health board tells each watched device's status changes, and only changes
 * (src/modbus/device-health.ts): what the poller passes on to its PollSink for
 * `modbus_device.*` events (src/ingest/modbus-device-status.ts).
 */
import { expect, test } from "bun:test";
import type { DeviceHealthStatus } from "../../../src/lib/device-health.ts";
import { createDeviceHealthBoard } from "../../../src/modbus/device-health.ts";

test("each status change of a watched device is told once, with the status before it; others are not told", () => {
  const board = createDeviceHealthBoard();
  const told: [string, DeviceHealthStatus, DeviceHealthStatus, string | null][] = [];
  board.watch(["pump"], (deviceId, previous, health) =>
    told.push([deviceId, previous, health.status, health.lastError]),
  );
  board.cycle("pump", 1_000, { answered: true, partial: false });
  board.cycle("pump", 2_000, { answered: true, partial: false });
  board.failed("pump", 2_500, "timeout after 300 ms at 3:0");
  board.cycle("pump", 3_000, { answered: false, partial: false });
  board.cycle("pump", 4_000, { answered: false, partial: false });
  board.quarantined("pump", 10_000);
  board.quarantined("pump", 20_000);
  board.linkDown(["pump"], 5_000, "connection refused");
  board.cycle("pump", 6_000, { answered: true, partial: true });
  board.cycle("other", 6_000, { answered: false, partial: false });
  expect(told).toEqual([
    ["pump", "unknown", "ok", null],
    ["pump", "ok", "unreachable", "timeout after 300 ms at 3:0"],
    ["pump", "unreachable", "quarantined", "timeout after 300 ms at 3:0"],
    ["pump", "quarantined", "degraded", "connection refused"],
  ]);
});
