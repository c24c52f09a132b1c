/** Undo steps registered as a test builds its world, run in reverse even when the test failed. */
export class Cleanup {
  private readonly steps: (() => unknown)[] = [];

  add(step: () => unknown): void {
    this.steps.push(step);
  }

  async run(): Promise<void> {
    while (this.steps.length > 0) {
      const step = this.steps.pop() as () => unknown;
      try {
        await step();
      } catch (error) {
        // One failed undo step must not leave the others undone.
        console.error("cleanup step failed:", error);
      }
    }
  }
}
