/**
 * One fill at a time, and none lost (the warm pool's and the spares'). A fill asked for while one runs may come
 * after that run's last look: a pool member or spare taken between its last count and its end would otherwise stay
 * missing until the next background tick (measured: the bench's pool stayed a member short for ten minutes, in two
 * runs of three). So such a request runs the fill once more when the current run ends; every request during one
 * run shares that second run.
 */
export class SerialFill {
  private running?: Promise<void>;
  private again?: Promise<void>;

  constructor(private readonly run: () => Promise<void>) {}

  /** Runs the fill, or, while one runs, once more after it; resolves when the run it asked for ends. */
  request(): Promise<void> {
    if (!this.running) {
      this.running = this.run().finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    this.again ??= this.running
      .catch(() => {})
      .then(() => {
        this.again = undefined;
        return this.request();
      });
    return this.again;
  }

  /** Waits for the run under way and the one asked for after it (shutdown); their failures are theirs. */
  async settled(): Promise<void> {
    while (this.running || this.again) await Promise.all([this.running, this.again].map((p) => p?.catch(() => {})));
  }
}
