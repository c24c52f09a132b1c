/**
 * The readings a site forwards (docs/fleet.md, "Forwarding", steps 2 and 3):
 * `GET /edge/v1/positions` answers where the site resumes; `POST /edge/v1/readings`
 * carries a batch `[register id, ts ms, raw value]`, a reading whose storage-period
 * aggregate is known followed by `raw min, raw max, raw mean, samples` (docs/fleet.md,
 * "Forwarding": a reading forwarded before its period ended is sent again with it).
 */
import { Type } from "@sinclair/typebox";
import { maxForwardedReadings } from "./limits.ts";
import { count, nullable, unixMs } from "./wire.ts";

/** The newest stored reading time of each of the site's registers (by register id) the central has. */
export const Positions = Type.Object({ positions: Type.Record(Type.String(), unixMs) });

// A register id is checked by the central looking it up among the site's registers
// (unknown ones refuse the batch), not by a UUID format: that check cost about
// 16 µs a row and made it most of a batch's time (docs/benchmarks.md, "Forwarding").
const registerId = Type.String({ minLength: 1, maxLength: 64 });
const rawValue = nullable(Type.Number());
export const ForwardedReadings = Type.Object({
  readings: Type.Array(
    Type.Union([
      Type.Tuple([registerId, unixMs, rawValue]),
      // JSON has no NaN: a NaN part travels as null.
      Type.Tuple([registerId, unixMs, rawValue, rawValue, rawValue, rawValue, Type.Integer({ minimum: 1 })]),
    ]),
    { maxItems: maxForwardedReadings },
  ),
});

/** Readings newly stored, and those whose storage period already held one (a resent batch: all skipped). */
export const ReadingsReceipt = Type.Object({ stored: count, skipped: count });
