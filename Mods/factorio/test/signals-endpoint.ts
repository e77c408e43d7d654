// A stand-in for the client's signals ingress: a real HTTP server on loopback that records each wake
// post and answers the scripted statuses in order (then 200), so tests can fail it and let it recover.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type ReceivedPost = { body: Record<string, unknown>; status: number; at: number };

/** The signals stand-in; `answers` is consumed one status per post. */
export class SignalsEndpoint {
  readonly posts: ReceivedPost[] = [];
  answers: number[] = [];
  private waiters: (() => void)[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(path = "/signals"): Promise<SignalsEndpoint> {
    let self: SignalsEndpoint | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const status = self!.answers.shift() ?? 200;
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
        } catch {
          body = { unparsable: true };
        }
        if (req.url === path && req.method === "POST") self!.posts.push({ body, status, at: Date.now() });
        res.writeHead(req.url === path ? status : 404, { "content-type": "application/json" });
        res.end(JSON.stringify({ ok: status < 300 }));
        for (const w of self!.waiters.splice(0)) w();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    self = new SignalsEndpoint(server, `http://127.0.0.1:${port}${path}`);
    return self;
  }

  /** Resolves once `n` posts have arrived (or rejects after timeoutMs). */
  async waitForPosts(n: number, timeoutMs = 10_000): Promise<ReceivedPost[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.posts.length < n) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${n} signal posts, got ${this.posts.length}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return this.posts;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
