/**
 * One rule's condition state on its register (docs/alerts.md, the transition
 * table): whether its alert is breaching, and since when the condition has held
 * while its `for` runs. A reading asks for a change (`observe`); the change
 * counts only once the engine has written it (`triggered`, `returned`): a full
 * disk or a held lock leaves the rule where it was, and the next reading asks again.
 */
import { isCleared, isMet } from "./conditions.ts";
import type { RuleConfig } from "./rule-model.ts";

/** What a reading asks of the rule: open (or re-trigger) its alert, let it return, or nothing. */
export type ConditionChange = "trigger" | "return" | null;

export class RuleCondition {
  readonly #rule: Pick<RuleConfig, "condition" | "threshold" | "hysteresis" | "forMs">;
  #breaching: boolean;
  /** When the condition began to hold, on the clock of PolledValue.monotonic (else its wall time). */
  #pendingSince: number | null = null;

  /** `breaching`: an open alert that is not returned means the condition was last seen met. */
  constructor(rule: Pick<RuleConfig, "condition" | "threshold" | "hysteresis" | "forMs">, breaching: boolean) {
    this.#rule = rule;
    this.#breaching = breaching;
  }

  get breaching(): boolean {
    return this.#breaching;
  }

  /** The scaled value read at `readAt` (monotonic ms): the change it asks for. */
  observe(value: number, readAt: number): ConditionChange {
    const rule = this.#rule;
    if (this.#breaching) return isCleared(rule.condition, value, rule.threshold, rule.hysteresis) ? "return" : null;
    if (!isMet(rule.condition, value, rule.threshold)) {
      this.#pendingSince = null;
      return null;
    }
    // A rule's "for" is a duration: measured on the monotonic clock the poller
    // stamps, so a wall-clock step neither fires it early nor holds it back.
    this.#pendingSince ??= readAt;
    return readAt - this.#pendingSince < rule.forMs ? null : "trigger";
  }

  /** The alert the rule asked for is written. */
  triggered(): void {
    this.#breaching = true;
    this.#pendingSince = null;
  }

  /** The return the rule asked for is written. */
  returned(): void {
    this.#breaching = false;
  }
}
