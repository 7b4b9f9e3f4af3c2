/**
 * At most one driver per thread object. A second caller (a duplicate queue delivery, the
 * alarm) waits for the running driver and then re-checks storage; while the driver is
 * "parked" (waiting inline for an MCP elicitation decision) callers return at once instead
 * of holding a queue consumer for the whole window.
 */
export class DriveLock {
  #driving: Promise<void> | undefined;
  #parked = false;
  #sleepers: Array<() => void> = [];

  /**
   * Runs `work` once no other driver runs (or returns if one is parked). The work keeps the
   * object alive through `keepAlive` (the object's waitUntil); a failure reaches this caller.
   */
  async run(work: () => Promise<void>, keepAlive: (p: Promise<void>) => void): Promise<void> {
    while (this.#driving) {
      if (this.#parked) {
        return;
      }
      await this.#settled();
    }
    const driving = work();
    this.#driving = driving
      .catch(() => {}) // reported to this caller below; later callers re-check storage
      .finally(() => {
        this.#driving = undefined;
        this.#parked = false;
        this.#wake();
      });
    keepAlive(this.#driving);
    await Promise.race([driving, this.#settled()]);
  }

  /** A driver runs now in this object (parked or not). */
  get busy(): boolean {
    return this.#driving !== undefined;
  }

  /** The driver started (true) or stopped (false) waiting inline: waiting callers may go. */
  park(waiting: boolean): void {
    this.#parked = waiting;
    if (waiting) {
      this.#wake();
    }
  }

  /** Resolves when the current driver finishes or parks. */
  #settled(): Promise<void> {
    return new Promise((resolve) => this.#sleepers.push(resolve));
  }

  #wake(): void {
    const sleepers = this.#sleepers;
    this.#sleepers = [];
    for (const wake of sleepers) {
      wake();
    }
  }
}
