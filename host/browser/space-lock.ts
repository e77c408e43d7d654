/**
 * One lock per task-space name (spec: "One lock per task-space name is held until that space's CLI exits and its
 * screenshots are collected"). It lives in the host, so it outlives a webview reload.
 */

/** Frees a held lock; calling it again does nothing. */
export type Release = () => void;

/** Per-name FIFO locks: one holder per name, different names independent. */
export class SpaceLocks {
  // A name is held while it has an entry; the array holds the waiters in arrival order.
  private readonly waiting = new Map<string, Array<() => void>>();

  /** Waits for the name's lock and returns its release; rejects with the signal's reason if aborted while waiting. */
  acquire(name: string, signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const queue = this.waiting.get(name);
    if (!queue) {
      this.waiting.set(name, []);
      return Promise.resolve(this.releaser(name));
    }
    return new Promise<Release>((resolve, reject) => {
      const onAbort = () => {
        const i = queue.indexOf(grant);
        if (i >= 0) queue.splice(i, 1);
        reject(signal?.reason);
      };
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve(this.releaser(name));
      };
      queue.push(grant);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Whether someone holds the name's lock now. */
  isHeld(name: string): boolean {
    return this.waiting.has(name);
  }

  private releaser(name: string): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.get(name)?.shift();
      if (next) next();
      else this.waiting.delete(name);
    };
  }
}
