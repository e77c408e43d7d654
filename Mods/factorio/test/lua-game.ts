// The real coop-agent game mod behind a real RCON server: a lua5.2 child process runs the mod on the
// game mod's fake Factorio API (test/lua-game/serve.lua), and this RCON server relays /coop-rpc to it.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import net from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { encodePacket, PacketReader, PacketType } from "../src/rcon/codec.ts";

const pkg = fileURLToPath(new URL("..", import.meta.url));

/** The game mod in lua5.2 behind RCON; `drive` sends one line to the Lua side and awaits its answer. */
export class LuaGame {
  readonly password = "lua-secret";
  port = 0;
  /** Requests for these ops run, then the connection drops before the reply. */
  loseNext: string[] = [];
  readonly commands: string[] = [];
  private waiting: ((line: string) => void)[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  private sockets = new Set<net.Socket>();

  private constructor(
    private readonly lua: ChildProcessWithoutNullStreams,
    private readonly server: net.Server,
  ) {}

  static async start(): Promise<LuaGame> {
    const lua = spawn("lua5.2", ["test/lua-game/serve.lua"], { cwd: pkg, stdio: "pipe" });
    let stderr = "";
    lua.stderr.on("data", (d) => (stderr += d));
    const server = net.createServer();
    const game = new LuaGame(lua, server);
    const lines = createInterface({ input: lua.stdout });
    const ready = new Promise<void>((resolve, reject) => {
      lua.once("exit", (code) => reject(new Error(`lua5.2 exited ${code}: ${stderr}`)));
      lines.once("line", () => resolve());
    });
    await ready;
    lines.on("line", (line) => game.waiting.shift()?.(line));
    server.on("connection", (s) => game.serve(s));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    game.port = (server.address() as net.AddressInfo).port;
    return game;
  }

  /** Sends one command to the Lua side (serialised); resolves with its answer, rejects on a Lua-side error. */
  drive(msg: Record<string, unknown>): Promise<{ printed?: string[] }> {
    const run = this.queue.then(
      () =>
        new Promise<{ printed?: string[] }>((resolve, reject) => {
          this.waiting.push((line) => {
            const answer = JSON.parse(line) as { printed?: string[]; error?: string };
            if (answer.error) reject(new Error(`lua: ${answer.error}`));
            else resolve(answer);
          });
          this.lua.stdin.write(`${JSON.stringify(msg)}\n`);
        }),
    );
    this.queue = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.lua.stdin.end();
    await new Promise((resolve) => this.lua.once("exit", resolve));
  }

  private serve(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    socket.on("error", () => {});
    const reader = new PacketReader();
    socket.on("data", async (chunk: Buffer) => {
      for (const p of reader.push(chunk)) {
        if (p.type === PacketType.AUTH) {
          const ok = p.body === this.password;
          socket.write(encodePacket({ id: ok ? p.id : -1, type: PacketType.AUTH_RESPONSE, body: "" }));
          continue;
        }
        const prefix = "/coop-rpc ";
        this.commands.push(p.body);
        if (!p.body.startsWith(prefix)) {
          socket.write(encodePacket({ id: p.id, type: PacketType.RESPONSE_VALUE, body: "Unknown command" }));
          continue;
        }
        const text = p.body.slice(prefix.length);
        const answer = await this.drive({ cmd: "rpc", text }).catch(() => undefined);
        if (!answer) {
          socket.destroy();
          return;
        }
        const op = (JSON.parse(text) as { op?: string }).op ?? "";
        const lose = this.loseNext.indexOf(op);
        if (lose >= 0) {
          this.loseNext.splice(lose, 1);
          socket.destroy();
          return;
        }
        // Factorio sends everything rcon.print wrote for one command as one packet, one print per line.
        const body = (answer.printed ?? []).join("\n");
        socket.write(encodePacket({ id: p.id, type: PacketType.RESPONSE_VALUE, body }));
      }
    });
  }
}
