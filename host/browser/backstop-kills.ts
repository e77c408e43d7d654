/**
 * Per task space, until when a script whose CLI the host killed at its backstop may still be running in ego lite
 * (killing the CLI does not stop the script). A call whose CLI starts before then may overlap that script, and its
 * result says so (OVERLAP_NOTE). Lives in the host process, like the space locks.
 */
export class BackstopKills {
  private readonly until = new Map<string, number>();

  /** Records a kill in `space`: a script of it may run until `until` (epoch ms). */
  record(space: string, until: number): void {
    this.until.set(space, Math.max(until, this.until.get(space) ?? 0));
  }

  /** Whether a script killed in `space` may still be running at `at`. */
  mayStillRun(space: string, at: number = Date.now()): boolean {
    const until = this.until.get(space);
    if (until === undefined) return false;
    if (at < until) return true;
    this.until.delete(space);
    return false;
  }
}
