import net from "node:net";
import { encodePacket, type Packet, PacketReader, PacketType } from "./codec.ts";

/**
 * Why an RCON exchange failed. `sent` tells whether the command may have reached the game: a write
 * whose reply was lost may have run, so only an idempotent re-send (same id) is safe.
 */
export type RconFailure = "unreachable" | "auth" | "lost" | "protocol";

/** An RCON failure with its kind and whether the command was written to the socket. */
export class RconError extends Error {
  override name = "RconError";
  constructor(
    message: string,
    readonly kind: RconFailure,
    readonly sent: boolean,
  ) {
    super(message);
  }
}

export type RconEndpoint = { host: string; port: number; password: string };
export type RconTimeouts = { connectMs: number; replyMs: number };

const MAX_ID = 0x7fffffff;

/** One authenticated Source RCON connection; commands run one at a time, replies matched by packet id. */
export class RconClient {
  private readonly reader = new PacketReader();
  private nextId = 1;
  private waiting: { id: number; resolve(p: Packet): void; reject(e: RconError): void } | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private closedReason: string | undefined;
  // The id of the AUTH packet in flight: its answer carries this id, or -1 for a wrong password.
  private authId = 0;

  private constructor(
    private readonly socket: net.Socket,
    private readonly endpoint: RconEndpoint,
    private readonly timeouts: RconTimeouts,
  ) {
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("error", (err) => this.fail(`RCON connection error: ${err.message}`));
    socket.on("close", () => this.fail("RCON connection closed by the game"));
  }

  /** Opens and authenticates a connection; throws RconError (unreachable or auth) with a clear message. */
  static async connect(endpoint: RconEndpoint, timeouts: RconTimeouts): Promise<RconClient> {
    const where = `${endpoint.host}:${endpoint.port}`;
    const socket = await new Promise<net.Socket>((resolve, reject) => {
      const s = net.connect({ host: endpoint.host, port: endpoint.port });
      const timer = setTimeout(() => {
        s.destroy();
        reject(new RconError(`RCON at ${where} did not accept a connection in time`, "unreachable", false));
      }, timeouts.connectMs);
      s.once("connect", () => {
        clearTimeout(timer);
        s.setNoDelay(true);
        resolve(s);
      });
      s.once("error", (err) => {
        clearTimeout(timer);
        reject(
          new RconError(
            `RCON at ${where} is unreachable (${err.message}); RCON only listens while the game is hosted`,
            "unreachable",
            false,
          ),
        );
      });
    });
    const client = new RconClient(socket, endpoint, timeouts);
    try {
      await client.authenticate();
    } catch (err) {
      client.close();
      throw err;
    }
    return client;
  }

  /** True once the socket is gone; a closed client rejects every exec. */
  get closed(): boolean {
    return this.closedReason !== undefined;
  }

  /** Runs one console command and resolves with the game's reply text (one packet, any size). */
  exec(command: string, replyMs = this.timeouts.replyMs): Promise<string> {
    // Factorio never answers an empty command, so the reply would only ever time out.
    if (command.trim() === "") {
      return Promise.reject(new RconError("refusing to send an empty RCON command", "protocol", false));
    }
    const run = this.chain.then(() => this.roundTrip(command, PacketType.EXECCOMMAND, replyMs));
    this.chain = run.catch(() => undefined);
    return run.then((p) => p.body);
  }

  /** Closes the socket; pending work fails as lost. */
  close(): void {
    this.fail("RCON connection closed");
    this.socket.destroy();
  }

  private async authenticate(): Promise<void> {
    const reply = await this.roundTrip(this.endpoint.password, PacketType.AUTH, this.timeouts.replyMs, true);
    if (reply.id === -1) {
      throw new RconError(
        `RCON at ${this.endpoint.host}:${this.endpoint.port} refused the password (local-rcon-password in config.ini)`,
        "auth",
        true,
      );
    }
  }

  private roundTrip(body: string, type: number, replyMs: number, isAuth = false): Promise<Packet> {
    if (this.closedReason !== undefined) {
      return Promise.reject(new RconError(this.closedReason, "unreachable", false));
    }
    const id = this.nextId;
    this.nextId = this.nextId >= MAX_ID ? 1 : this.nextId + 1;
    return new Promise<Packet>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        reject(new RconError(`no RCON reply within ${replyMs} ms`, "lost", true));
        // A late reply would arrive on a connection we no longer trust to be in step: drop it.
        this.close();
      }, replyMs);
      this.waiting = {
        // Auth answers with the request id, or -1 for a wrong password.
        id: isAuth ? -2 : id,
        resolve: (p) => {
          clearTimeout(timer);
          resolve(p);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      if (isAuth) this.authId = id;
      this.socket.write(encodePacket({ id, type, body }));
    });
  }

  private onData(chunk: Buffer): void {
    let packets: Packet[];
    try {
      packets = this.reader.push(chunk);
    } catch (err) {
      this.fail(`RCON stream is broken: ${(err as Error).message}`, "protocol");
      this.socket.destroy();
      return;
    }
    for (const p of packets) {
      const w = this.waiting;
      if (!w) continue;
      if (w.id === -2) {
        // Source servers may send an empty RESPONSE_VALUE before the AUTH_RESPONSE; skip it.
        if (p.type !== PacketType.AUTH_RESPONSE) continue;
        if (p.id !== this.authId && p.id !== -1) continue;
      } else if (p.id !== w.id || p.type !== PacketType.RESPONSE_VALUE) {
        continue;
      }
      this.waiting = undefined;
      w.resolve(p);
    }
  }

  private fail(reason: string, kind: RconFailure = "lost"): void {
    if (this.closedReason === undefined) this.closedReason = reason;
    const w = this.waiting;
    this.waiting = undefined;
    w?.reject(new RconError(reason, kind, true));
  }
}
