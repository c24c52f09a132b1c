/**
 * Register values to the broker, retained (docs/mqtt.md, "Values"). A poll hands
 * its values over and returns at once: they wait here, newest per register (so
 * memory is bounded by the number of registers), and go out from a timer, never
 * from the poll's own call. While the broker is away they wait; on the next
 * connect the newest of each goes out. At most `maxInFlight` publishes are
 * unanswered at a time; the rest wait here, not in the client's buffers.
 */
import { isoFromMs } from "../lib/clock.ts";
import type { MqttSettings } from "../lib/mqtt-settings.ts";
import type { PolledValue } from "../lib/polled-value.ts";
import { scalerFor } from "../lib/register-scaling.ts";
import type { Session } from "./connection.ts";
import type { PublishedRegister } from "./topics.ts";
import { type LastPublished, worthPublishing } from "./value-gate.ts";

interface Pending {
  register: PublishedRegister;
  value: number | string;
  payload: string;
}

export interface ValueStats {
  published: number;
  /** Values read but within the deadband (and the interval): not published. */
  heldBack: number;
  waiting: number;
  inFlight: number;
}

export function createValuePublisher(options: {
  settings: MqttSettings;
  registers: ReadonlyMap<string, PublishedRegister>;
  monotonic: () => number;
  session: () => Session | null;
  maxInFlight?: number;
}) {
  const { settings, monotonic } = options;
  let registers = options.registers;
  const maxInFlight = options.maxInFlight ?? 1000;
  const scalers = new Map<string, (raw: number) => number>();
  const scaleAll = () => {
    scalers.clear();
    for (const register of registers.values()) scalers.set(register.registerId, scalerFor(register.scaleFactor));
  };
  scaleAll();
  const last = new Map<string, LastPublished>();
  const pending = new Map<string, Pending>();
  const stats: ValueStats = { published: 0, heldBack: 0, waiting: 0, inFlight: 0 };
  let scheduled: ReturnType<typeof setTimeout> | null = null;
  /** Published on the current connection, not yet answered; a new connection sends them again. */
  const unanswered = new Map<string, Pending>();
  let connection = 0;

  function payloadOf(register: PublishedRegister, value: PolledValue, engineering: number | string): string {
    const ts = isoFromMs(value.ts);
    return typeof engineering === "string"
      ? JSON.stringify({ text: engineering, unit: register.unit, ts })
      : JSON.stringify({ value: engineering, raw_value: value.raw, unit: register.unit, ts });
  }

  function offer(values: readonly PolledValue[]): void {
    const now = monotonic();
    for (const value of values) {
      const register = registers.get(value.registerId);
      if (register === undefined) continue;
      // A read that gave nothing (raw null, no text) has no value to publish.
      const engineering =
        value.text !== undefined
          ? value.text
          : value.raw === null
            ? null
            : value.scaleFactor !== undefined
              ? scalerFor(value.scaleFactor)(value.raw)
              : (scalers.get(value.registerId) ?? Number)(value.raw);
      if (engineering === null) continue;
      // One waiting already goes out: the newer value replaces it.
      if (
        !pending.has(register.registerId) &&
        !worthPublishing(last.get(register.registerId), engineering, register.deadband, now, settings.maxIntervalMs)
      ) {
        stats.heldBack += 1;
        continue;
      }
      pending.set(register.registerId, {
        register,
        value: engineering,
        payload: payloadOf(register, value, engineering),
      });
    }
    schedule();
  }

  /**
   * A value not taken goes again, unless a newer one waits or a reload has since
   * removed its register or changed what its value means (retarget).
   */
  function requeue(registerId: string, entry: Pending): void {
    const register = registers.get(registerId);
    if (pending.has(registerId) || register === undefined || !samePublication(register, entry.register)) return;
    pending.set(registerId, { ...entry, register });
  }

  function schedule(): void {
    if (scheduled !== null || pending.size === 0) return;
    scheduled = setTimeout(flush, 0);
  }

  function flush(): void {
    scheduled = null;
    const session = options.session();
    if (session === null) return;
    const publishedOn = connection;
    for (const [registerId, entry] of pending) {
      if (unanswered.size >= maxInFlight) break;
      pending.delete(registerId);
      unanswered.set(registerId, entry);
      last.set(registerId, { value: entry.value, at: monotonic() });
      session.client.publish(entry.register.topic, entry.payload, { qos: settings.qos, retain: true }, (error) => {
        // An answer from a connection since replaced: resume() has dealt with its values.
        if (publishedOn !== connection || unanswered.get(registerId) !== entry) return;
        unanswered.delete(registerId);
        if (error === undefined || error === null) stats.published += 1;
        // Not taken: sent again unless a newer one waits, or a reload took the register away or changed its topic.
        else requeue(registerId, entry);
        schedule();
      });
    }
  }

  return {
    offer,
    /**
     * A new connection: what the last one left unanswered waits again (unless a
     * newer value does), and what waits goes out now.
     */
    resume(): void {
      connection += 1;
      for (const [registerId, entry] of unanswered) requeue(registerId, entry);
      unanswered.clear();
      schedule();
    },
    /**
     * A reloaded inventory (docs/config.md, "Reloading the config"): a register
     * published as before keeps its last value and time (its deadband and
     * max_interval_s go on); one whose topic or payload changes (unit, scale, type)
     * starts again with its next value; a removed one is forgotten, with what waits
     * of it.
     */
    retarget(next: ReadonlyMap<string, PublishedRegister>): void {
      for (const [registerId, before] of registers) {
        const after = next.get(registerId);
        if (after !== undefined && samePublication(before, after)) {
          // The deadband may have changed: what waits goes out with the register it now has.
          const waiting = pending.get(registerId);
          if (waiting !== undefined) pending.set(registerId, { ...waiting, register: after });
          continue;
        }
        last.delete(registerId);
        pending.delete(registerId);
      }
      registers = next;
      scaleAll();
    },
    stats: (): ValueStats => ({ ...stats, waiting: pending.size, inFlight: unanswered.size }),
    stop(): void {
      if (scheduled !== null) clearTimeout(scheduled);
    },
  };
}

/** Whether a register's values go to the same topic with the same meaning (not its deadband alone). */
function samePublication(a: PublishedRegister, b: PublishedRegister): boolean {
  return a.topic === b.topic && a.unit === b.unit && a.scaleFactor === b.scaleFactor && a.dataType === b.dataType;
}
