import { RconClient, type RconEndpoint, RconError, type RconTimeouts } from "./client.ts";

export type LinkOptions = RconTimeouts & {
  /** Where to connect; called on every (re)connect so an edited config.ini is picked up. Throws a clear Error. */
  endpoint: () => RconEndpoint;
  /** First and largest wait between failed connects (the poller honours it; tool calls try at once). */
  backoffMinMs: number;
  backoffMaxMs: number;
  now?: () => number;
};

/** A lazily (re)connecting RCON connection with backoff between failed connects. */
export class RconLink {
  private client: RconClient | undefined;
  private connecting: Promise<RconClient> | undefined;
  private failures = 0;
  private notBefore = 0;
  private lastFailure = "";
  private readonly now: () => number;

  constructor(private readonly opts: LinkOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Runs a command, connecting first when needed; `patient` callers (the poller) respect the backoff. */
  async exec(command: string, patient = false): Promise<string> {
    const client = await this.connected(patient);
    try {
      return await client.exec(command);
    } catch (err) {
      if (client.closed) this.client = undefined;
      throw err;
    }
  }

  /** Drops the connection (the next exec reconnects). */
  close(): void {
    this.client?.close();
    this.client = undefined;
  }

  private async connected(patient: boolean): Promise<RconClient> {
    if (this.client && !this.client.closed) return this.client;
    this.client = undefined;
    if (patient && this.now() < this.notBefore) {
      // Same words as the failure being waited out, so a log that dedupes messages says it once.
      throw new RconError(this.lastFailure, "unreachable", false);
    }
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<RconClient> {
    try {
      let endpoint: RconEndpoint;
      try {
        endpoint = this.opts.endpoint();
      } catch (err) {
        throw new RconError((err as Error).message, "unreachable", false);
      }
      const client = await RconClient.connect(endpoint, this.opts);
      this.failures = 0;
      this.notBefore = 0;
      this.client = client;
      return client;
    } catch (err) {
      const wait = Math.min(this.opts.backoffMaxMs, this.opts.backoffMinMs * 2 ** this.failures);
      this.failures++;
      this.notBefore = this.now() + wait;
      this.lastFailure = (err as Error).message;
      throw err;
    }
  }
}
