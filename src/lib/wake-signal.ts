/**
 * A loop's pause that a caller can cut short: the webhook dispatcher and the MQTT
 * event publisher look at the store's outbox every so often, and at once when an
 * event was recorded.
 */
export function createWakeSignal() {
  let wakeUp: (() => void) | null = null;
  return {
    /** Resolves after `ms`, or as soon as `wake()` is called. */
    async pause(ms: number): Promise<void> {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wakeUp = null;
    },
    wake(): void {
      wakeUp?.();
    },
  };
}
