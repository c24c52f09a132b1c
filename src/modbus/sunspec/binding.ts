/**
 * A device's SunSpec registers placed on its register map (docs/sunspec.md, "Polling"):
 * the config knows each point by model and offset; the device's model chain, read once
 * (and again each cycle until it has been read), says where each model starts. A point
 * of a model the device lacks, or beyond its model's length (a repeating group's
 * instance the device does not have), is not polled.
 */
import { LoggedFailure } from "../../lib/log-once.ts";
import type { Logger } from "../../lib/logger.ts";
import type { PolledRegister } from "../polling-config.ts";
import { registerSpan } from "../register-model.ts";
import { findSunSpecChain, type HoldingRegisterReader, type SunSpecChain } from "./chain.ts";
import { knownSunSpecModel } from "./points.ts";

export type ChainReadResult =
  | { kind: "bound" }
  /** The device did not answer any request of the walk. */
  | { kind: "silent"; error: string }
  /** It answered, but the chain could not be read (no marker, or a request of the walk failed). */
  | { kind: "failed"; error: string };

/** What a read of the walk came back with, as the poll cycle saw it. */
export type ChainRead = (
  address: number,
  count: number,
) => Promise<{ words: number[] } | { error: string; answered: boolean }>;

export class SunSpecBinding {
  /** Each placed register's address on the device, by register id; null until the chain is read. */
  private addresses: Map<string, number> | null = null;
  /** Bumped each time the chain is read, so each poll group places its registers again. */
  generation = 0;
  /** A device that answers without a readable chain is logged once, not every cycle (a silent one by the poll loop). */
  private readonly unreadable = new LoggedFailure();

  constructor(
    private readonly registers: readonly PolledRegister[],
    private readonly log: Logger,
  ) {}

  get bound(): boolean {
    return this.addresses !== null;
  }

  /** Reads the chain through `read`; on success every SunSpec register is placed or left out. */
  async readChain(read: ChainRead): Promise<ChainReadResult> {
    let answered = false;
    let lastError = "";
    const reader: HoldingRegisterReader = async (address, count) => {
      const outcome = await read(address, count);
      if ("words" in outcome) {
        answered = true;
        return outcome.words;
      }
      answered ||= outcome.answered;
      lastError = outcome.error;
      throw new Error(outcome.error);
    };
    const chain = await findSunSpecChain(reader, { stopLooking: () => !answered });
    if (!answered) return { kind: "silent", error: `SunSpec model chain not read: ${lastError}` };
    if (chain === null || chain.end === "read_failed") {
      const error =
        chain === null
          ? "SunSpec model chain not read: no SunS marker at 40000, 0 or 50000"
          : `SunSpec model chain not read to its end at ${chain.base}: ${lastError}`;
      if (this.unreadable.occurred(error)) {
        this.log.warn({ error }, "SunSpec model chain not read; its points are not polled, tried again each cycle");
      }
      return { kind: "failed", error };
    }
    this.unreadable.ended();
    this.place(chain);
    return { kind: "bound" };
  }

  /** The registers as polled now: the SunSpec ones at their device addresses (or left out), the others as they are. */
  polled(registers: readonly PolledRegister[]): PolledRegister[] {
    const addresses = this.addresses;
    return registers.flatMap((register) => {
      if (register.sunspec === undefined) return [register];
      const address = addresses?.get(register.id);
      return address === undefined ? [] : [{ ...register, address }];
    });
  }

  private place(chain: SunSpecChain): void {
    const firstById = new Map<number, { address: number; length: number }>();
    for (const model of chain.models) if (!firstById.has(model.id)) firstById.set(model.id, model);
    const addresses = new Map<string, number>();
    const missing = new Set<number>();
    for (const register of this.registers) {
      const place = register.sunspec;
      if (place === undefined) continue;
      const model = firstById.get(place.model);
      if (model === undefined) {
        missing.add(place.model);
        continue;
      }
      // The model's registers run from its id word (offset 0) to offset length + 1.
      if (place.offset + registerSpan(register) > model.length + 2) continue;
      addresses.set(register.id, model.address + place.offset);
    }
    this.addresses = addresses;
    this.generation++;
    this.log.info(
      {
        base: chain.base,
        models: chain.models.map(
          (model) =>
            `${model.id}@${model.address}+${model.length}${knownSunSpecModel(model.id) ? "" : " (unknown, skipped)"}`,
        ),
        chain_end: chain.end,
        models_missing: [...missing],
        registers_placed: addresses.size,
      },
      "SunSpec model chain read",
    );
  }
}
