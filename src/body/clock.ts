// The body's sense of time, injected so that the state machine is pure and its tests step time by hand.

export interface Clock {
  now(): number;
  /** Runs fn after ms; answers a function that cancels it. */
  setTimer(ms: number, fn: () => void): () => void;
}

/** The real clock. */
export const realClock: Clock = {
  now: () => Date.now(),
  setTimer(ms, fn) {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

/** A clock that only moves when told: advance(ms) runs the timers that fall due, in time order. */
export class ManualClock implements Clock {
  private t = 0;
  private seq = 0;
  private timers: { at: number; seq: number; fn: () => void }[] = [];

  now(): number {
    return this.t;
  }

  setTimer(ms: number, fn: () => void): () => void {
    const timer = { at: this.t + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((x) => x !== timer);
    };
  }

  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const due = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = due.at;
      due.fn();
    }
    this.t = end;
  }
}
