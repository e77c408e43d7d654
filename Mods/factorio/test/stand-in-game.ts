// A stand-in for Factorio with the coop-agent game mod: a real Source RCON server on loopback that answers
// /coop-rpc exactly as docs/coop-rpc.md says, and that tests can script (floods, gaps, rollbacks, map
// changes, lost replies, raw answers). It keeps no game logic beyond what the protocol shows.
import net from "node:net";
import { encodePacket, PacketReader, PacketType } from "../src/rcon/codec.ts";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };
type Pos = { x: number; y: number };
export type StandInEvent = { seq: number; tick: number; kind: string } & Obj;
export type RecordedRequest = { op: string; id?: string; session?: string; args: Obj; raw: string };

type JobRecord = {
  id: number;
  kind: string;
  args: Obj;
  timeout_ticks: number;
  state: "queued" | "running" | "done" | "failed" | "cancelled";
  enqueued_tick: number;
  started_tick: number | null;
  ended_tick: number | null;
  result: Json;
  reason: string | null;
};

class BadRequest extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}
class OpError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly extra: Obj = {},
  ) {
    super(message);
  }
}

export const STAND_IN_VERSION = "0.1.0";
const WRITES = new Set(["say", "ping", "jobs_enqueue", "jobs_cancel", "idle", "stop"]);
const SECTIONS = ["body", "host", "players", "jobs", "research", "production", "power", "enemies"];
const JOB_KINDS = ["walk_to", "mine", "craft", "place", "insert", "take"];
const RECIPES: Record<string, Obj> = {
  "iron-gear-wheel": {
    name: "iron-gear-wheel",
    category: "crafting",
    energy: 0.5,
    enabled: true,
    ingredients: [{ type: "item", name: "iron-plate", amount: 2 }],
    products: [{ type: "item", name: "iron-gear-wheel", amount: 1 }],
  },
};
const ENTITIES: Obj[] = [
  { unit_number: 11, name: "stone-furnace", type: "furnace", position: { x: 3, y: 4 } },
  { unit_number: 12, name: "burner-mining-drill", type: "mining-drill", position: { x: 6, y: 4 } },
  { unit_number: 13, name: "stone-furnace", type: "furnace", position: { x: 40, y: 40 } },
];

const KNOWN_NAMES = new Set([...ENTITIES.map((e) => e.name as string), "iron-ore"]);
const KNOWN_TYPES = new Set([...ENTITIES.map((e) => e.type as string), "resource"]);

let mapCounter = 0;

export type StandInOptions = { password?: string; ringCapacity?: number; omitQueue?: boolean };

/** The stand-in game: start it, point the Mod at `port` and `password`, script it, close it. */
export class StandInGame {
  readonly password: string;
  ringCapacity: number;
  /** When true, status carries no queue (to test queue_length: null). */
  omitQueue: boolean;
  mapId = "";
  tick = 1000;
  head = 0;
  ring: StandInEvent[] = [];
  jobs: JobRecord[] = [];
  nextJobId = 1;
  idle: { mode: string; pos: Pos | null } = { mode: "follow", pos: null };
  stopped = false;
  hostOnline = true;
  bodyAlive = true;
  readonly chat: string[] = [];
  readonly pings: { pos: Pos; text: string }[] = [];
  readonly requests: RecordedRequest[] = [];
  private idStore = new Map<string, { op: string; args: string; result: Obj }>();
  private faults: { op: string; mode: "lose" | "swallow" | "raw"; text?: string; then?: () => void }[] = [];
  private sockets = new Set<net.Socket>();
  private server!: net.Server;
  port = 0;

  private constructor(opts: StandInOptions) {
    this.password = opts.password ?? "stand-in-secret";
    this.ringCapacity = opts.ringCapacity ?? 2048;
    this.omitQueue = opts.omitQueue ?? false;
    this.newMap();
  }

  /** Starts the RCON server on 127.0.0.1 (a free port). */
  static async start(opts: StandInOptions = {}): Promise<StandInGame> {
    const game = new StandInGame(opts);
    game.server = net.createServer((s) => game.serve(s));
    await new Promise<void>((resolve) => game.server.listen(0, "127.0.0.1", resolve));
    game.port = (game.server.address() as net.AddressInfo).port;
    return game;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // ---- scripting -------------------------------------------------------------------------------

  /** Adds one event to the ring (dropping the oldest past the capacity) and returns it. */
  emit(kind: string, fields: Obj = {}): StandInEvent {
    this.tick += 1;
    const e = { ...fields, seq: ++this.head, tick: this.tick, kind } as StandInEvent;
    this.ring.push(e);
    if (this.ring.length > this.ringCapacity) this.ring.splice(0, this.ring.length - this.ringCapacity);
    return e;
  }

  /** Adds n events of one kind. */
  flood(n: number, kind = "snapshot_summary"): void {
    for (let i = 0; i < n; i++) this.emit(kind, { summary: { i } });
  }

  /** A new map: new map id, seq from 0, empty ring, no jobs, no stored writes. */
  newMap(): string {
    this.mapId = `standin-${process.pid}-${++mapCounter}`;
    this.head = 0;
    this.ring = [];
    this.jobs = [];
    this.nextJobId = 1;
    this.idStore.clear();
    this.stopped = false;
    return this.mapId;
  }

  /** Loads an "older save" of the same map: every event above seq is gone and seq continues from there. */
  rollbackTo(seq: number): void {
    this.ring = this.ring.filter((e) => e.seq <= seq);
    this.head = seq;
  }

  /** The next request for `op` runs, then the connection drops before the reply (a lost reply); `then` runs after. */
  loseNextReply(op: string, then?: () => void): void {
    this.faults.push({ op, mode: "lose", ...(then ? { then } : {}) });
  }

  /** The next request for `op` runs and is never answered (the Mod's reply timeout fires). */
  swallowNextReply(op: string): void {
    this.faults.push({ op, mode: "swallow" });
  }

  /** The next request for `op` is answered with this text instead of a reply. */
  rawNextReply(op: string, text: string): void {
    this.faults.push({ op, mode: "raw", text });
  }

  /** Requests received for one op. */
  requestsFor(op: string): RecordedRequest[] {
    return this.requests.filter((r) => r.op === op);
  }

  get oldestSeq(): number {
    return this.ring[0]?.seq ?? this.head + 1;
  }

  // ---- RCON ------------------------------------------------------------------------------------

  private serve(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    socket.on("error", () => {});
    const reader = new PacketReader();
    let authed = false;
    socket.on("data", (chunk: Buffer) => {
      let packets: ReturnType<PacketReader["push"]>;
      try {
        packets = reader.push(chunk);
      } catch {
        socket.destroy();
        return;
      }
      for (const p of packets) {
        if (p.type === PacketType.AUTH) {
          authed = p.body === this.password;
          // Like a Source server: an empty RESPONSE_VALUE, then the AUTH_RESPONSE (-1 on a bad password).
          socket.write(encodePacket({ id: p.id, type: PacketType.RESPONSE_VALUE, body: "" }));
          socket.write(encodePacket({ id: authed ? p.id : -1, type: PacketType.AUTH_RESPONSE, body: "" }));
          continue;
        }
        if (!authed || p.type !== PacketType.EXECCOMMAND) {
          socket.destroy();
          return;
        }
        // Factorio does not answer an empty command.
        if (p.body.trim() === "") continue;
        const answer = this.command(p.body);
        if (answer === "lose") {
          socket.destroy();
          return;
        }
        if (answer === "swallow") continue;
        socket.write(encodePacket({ id: p.id, type: PacketType.RESPONSE_VALUE, body: answer }));
      }
    });
  }

  private command(line: string): string {
    const prefix = "/coop-rpc ";
    if (!line.startsWith(prefix)) return `Unknown command "${line.split(" ")[0]!.replace(/^\//, "")}".`;
    const raw = line.slice(prefix.length);
    let req: unknown;
    try {
      req = JSON.parse(raw);
    } catch {
      return this.reply({
        ok: false,
        code: "bad_request",
        message: "the request is not JSON",
        extra: { field: "" },
      });
    }
    const r = (req && typeof req === "object" && !Array.isArray(req) ? req : {}) as Obj;
    const op = typeof r.op === "string" ? r.op : "";
    const args = (r.args && typeof r.args === "object" && !Array.isArray(r.args) ? r.args : {}) as Obj;
    const id = typeof r.id === "string" ? r.id : undefined;
    const session = typeof r.session === "string" ? r.session : undefined;
    this.requests.push({
      op,
      args,
      raw,
      ...(id !== undefined ? { id } : {}),
      ...(session ? { session } : {}),
    });
    const faultAt = this.faults.findIndex((f) => f.op === op);
    const fault = faultAt >= 0 ? this.faults.splice(faultAt, 1)[0] : undefined;
    const answer = this.handle(op, id, session, args);
    fault?.then?.();
    if (fault?.mode === "lose" || fault?.mode === "swallow") return fault.mode;
    if (fault?.mode === "raw") return fault.text ?? "";
    return answer;
  }

  private reply(
    r:
      | { ok: true; result: Obj; replayed?: boolean }
      | { ok: false; code: string; message: string; extra?: Obj },
  ): string {
    this.tick += 1;
    if (r.ok) {
      // Factorio's table_to_json writes an empty table as [], so the stand-in does too.
      const result = Object.keys(r.result).length === 0 ? [] : r.result;
      return JSON.stringify({
        ok: true,
        ...(r.replayed ? { replayed: true } : {}),
        map_id: this.mapId,
        tick: this.tick,
        result,
      });
    }
    return JSON.stringify({
      ok: false,
      map_id: this.mapId,
      tick: this.tick,
      error: { code: r.code, message: r.message, ...(r.extra ?? {}) },
    });
  }

  private handle(op: string, id: string | undefined, session: string | undefined, args: Obj): string {
    const known = new Set([
      "status",
      "events_since",
      "snapshot",
      "find",
      "inspect",
      "recipe",
      "jobs",
      ...WRITES,
    ]);
    if (!known.has(op))
      return this.reply({ ok: false, code: "bad_request", message: "unknown op", extra: { field: "op" } });
    if (op !== "status" && session !== undefined && session !== this.mapId) {
      return this.reply({
        ok: false,
        code: "stale_session",
        message: "the game is on another map",
        extra: { map_id: this.mapId },
      });
    }
    const write = WRITES.has(op);
    const argsKey = canonical(args);
    if (write) {
      if (id === undefined || !/^[A-Za-z0-9_.:-]{1,64}$/.test(id)) {
        return this.reply({
          ok: false,
          code: "bad_request",
          message: "writes need an id",
          extra: { field: "id" },
        });
      }
      const stored = this.idStore.get(id);
      if (stored) {
        if (stored.op === op && stored.args === argsKey)
          return this.reply({ ok: true, result: stored.result, replayed: true });
        return this.reply({
          ok: false,
          code: "id_conflict",
          message: `id ${id} already ran ${stored.op} with different args`,
          extra: { id },
        });
      }
    }
    try {
      const result = this.run(op, args);
      if (write && id !== undefined) this.idStore.set(id, { op, args: argsKey, result });
      return this.reply({ ok: true, result });
    } catch (err) {
      if (err instanceof BadRequest) {
        return this.reply({
          ok: false,
          code: "bad_request",
          message: err.message,
          extra: { field: err.field },
        });
      }
      if (err instanceof OpError)
        return this.reply({ ok: false, code: err.code, message: err.message, extra: err.extra });
      return this.reply({ ok: false, code: "internal", message: String(err) });
    }
  }

  private status(): Obj {
    const running = this.jobs.find((j) => j.state === "running")?.id ?? null;
    const length = this.jobs.filter((j) => j.state === "queued" || j.state === "running").length;
    return {
      version: STAND_IN_VERSION,
      map_id: this.mapId,
      seq: this.head,
      oldest_seq: this.oldestSeq,
      tick: this.tick,
      host: { name: "host", state: this.hostOnline ? "online" : "offline", position: { x: 0, y: 0 } },
      body: { name: "Yui", state: this.bodyAlive ? "alive" : "dead", position: { x: 1, y: 0 } },
      idle: this.idle,
      stopped: this.stopped,
      ...(this.omitQueue ? {} : { queue: { length, running } }),
    };
  }

  /** `find`: the entities by area, distance, name or type, checked as the game mod checks them. */
  private find(a: Obj): Obj {
    if (a.area === undefined && a.around === undefined && a.name === undefined && a.type === undefined) {
      throw new BadRequest("args", "give at least one of area, around, name, type");
    }
    const limit = a.limit === undefined ? 50 : int(a.limit, "args.limit", 1, 200);
    // Like the game mod: names and types are checked against the game's prototypes.
    if (a.name !== undefined && !KNOWN_NAMES.has(str(a.name, "args.name", 1, 200))) {
      throw new BadRequest("args.name", `args.name is not a known entity: ${a.name}`);
    }
    if (a.type !== undefined && !KNOWN_TYPES.has(str(a.type, "args.type", 1, 200))) {
      throw new BadRequest("args.type", `args.type is not a known entity type: ${a.type}`);
    }
    if (a.area !== undefined) {
      const area = (a.area ?? {}) as Obj;
      const lt = position(area.left_top, "args.area.left_top");
      const rb = position(area.right_bottom, "args.area.right_bottom");
      // Like the game mod: one request must not scan a whole map.
      if (rb.x - lt.x > 1024 || rb.y - lt.y > 1024) {
        throw new BadRequest("args.area", "args.area is more than 1024 tiles across");
      }
    }
    if (a.around !== undefined) {
      num(a.around, "args.around", 1, 256);
      if (!this.hostOnline)
        throw new OpError("unavailable", "the host player is not connected", { what: "host" });
    }
    let found = ENTITIES.filter(
      (e) => (a.name === undefined || e.name === a.name) && (a.type === undefined || e.type === a.type),
    );
    if (a.around !== undefined) {
      const r = a.around as number;
      found = found.filter((e) => Math.hypot((e.position as Pos).x, (e.position as Pos).y) <= r);
    }
    return { entities: found.slice(0, limit), truncated: found.length > limit };
  }

  private run(op: string, a: Obj): Obj {
    switch (op) {
      case "status":
        return this.status();
      case "events_since": {
        const seq = int(a.seq, "args.seq", 0);
        const limit = a.limit === undefined ? 200 : int(a.limit, "args.limit", 1, 200);
        if (seq < this.oldestSeq - 1) {
          throw new OpError("history_gap", "those events are gone", {
            oldest_seq: this.oldestSeq,
            head_seq: this.head,
          });
        }
        const start = this.ring.findIndex((e) => e.seq > seq);
        const events = start < 0 ? [] : this.ring.slice(start, start + limit);
        return { events, head_seq: this.head, oldest_seq: this.oldestSeq, map_id: this.mapId };
      }
      case "snapshot": {
        const asked = a.sections === undefined ? [] : a.sections;
        if (!Array.isArray(asked)) throw new BadRequest("args.sections", "sections must be an array");
        asked.forEach((s, i) => {
          if (typeof s !== "string" || !SECTIONS.includes(s)) {
            throw new BadRequest(`args.sections[${i}]`, `unknown section ${JSON.stringify(s)}`);
          }
        });
        const names = asked.length === 0 ? SECTIONS : (asked as string[]);
        const sections: Obj = {};
        for (const n of names) sections[n] = { section: n };
        return { sections };
      }
      case "find":
        return this.find(a);
      case "inspect": {
        const n = int(a.unit_number, "args.unit_number", 1);
        const e = ENTITIES.find((x) => x.unit_number === n);
        if (!e) throw new OpError("not_found", `no entity with unit number ${n}`, { what: "entity" });
        return { entity: { ...e, health: 150, status: "working" } };
      }
      case "recipe": {
        const name = str(a.name, "args.name", 1, 200);
        const r = RECIPES[name];
        if (!r) throw new OpError("not_found", `no recipe named ${name}`, { what: "recipe" });
        return { recipe: r };
      }
      case "jobs":
        return { jobs: this.jobs as unknown as Json[] };
      case "say":
        this.chat.push(`[Yui] ${str(a.text, "args.text", 1, 500)}`);
        return {};
      case "ping": {
        const pos = position(a.pos, "args.pos");
        this.pings.push({ pos, text: str(a.text, "args.text", 1, 200) });
        return {};
      }
      case "jobs_enqueue": {
        const jobs = a.jobs;
        if (!Array.isArray(jobs) || jobs.length < 1 || jobs.length > 8) {
          throw new BadRequest("args.jobs", "jobs must be an array of 1 to 8 jobs");
        }
        const checked = jobs.map((j, i) => {
          const f = `args.jobs[${i}]`;
          if (!j || typeof j !== "object" || Array.isArray(j))
            throw new BadRequest(f, "a job must be an object");
          const job = j as Obj;
          if (typeof job.kind !== "string" || !JOB_KINDS.includes(job.kind)) {
            throw new BadRequest(`${f}.kind`, `unknown job kind ${JSON.stringify(job.kind)}`);
          }
          const jargs = (job.args ?? {}) as Obj;
          validateJob(job.kind, jargs, `${f}.args`);
          const timeout =
            job.timeout_ticks === undefined
              ? 18000
              : int(job.timeout_ticks, `${f}.timeout_ticks`, 60, 216000);
          return { kind: job.kind, args: jargs, timeout };
        });
        const ids = checked.map((c) => {
          const id = this.nextJobId++;
          this.jobs.push({
            id,
            kind: c.kind,
            args: c.args,
            timeout_ticks: c.timeout,
            state: "queued",
            enqueued_tick: this.tick,
            started_tick: null,
            ended_tick: null,
            result: null,
            reason: null,
          });
          return id;
        });
        this.stopped = false;
        return { ids };
      }
      case "jobs_cancel": {
        const live = this.jobs.filter((j) => j.state === "queued" || j.state === "running");
        let hit: JobRecord[];
        if (a.job === "all") hit = live;
        else {
          const n = int(a.job, "args.job", 1);
          hit = live.filter((j) => j.id === n);
          if (hit.length === 0)
            throw new OpError("not_found", `no queued or running job ${n}`, { what: "job" });
        }
        for (const j of hit) {
          j.state = "cancelled";
          j.ended_tick = this.tick;
        }
        return { cancelled: hit.map((j) => j.id) };
      }
      case "idle": {
        if (a.mode !== "follow" && a.mode !== "stay")
          throw new BadRequest("args.mode", "mode is follow or stay");
        if (a.mode === "follow" && !this.hostOnline) {
          throw new OpError("unavailable", "the host player is not connected", { what: "host" });
        }
        const pos =
          a.mode === "stay" ? (a.pos === undefined ? { x: 1, y: 0 } : position(a.pos, "args.pos")) : null;
        this.idle = { mode: a.mode, pos };
        this.stopped = false;
        return { mode: a.mode, pos };
      }
      case "stop": {
        if (!this.bodyAlive) throw new OpError("unavailable", "the body is not there", { what: "body" });
        this.stopped = true;
        this.emit("stopped", { by: "agent" });
        return { stopped: true };
      }
    }
    throw new BadRequest("op", "unknown op");
  }
}

function validateJob(kind: string, a: Obj, f: string): void {
  switch (kind) {
    case "walk_to":
      position(a.pos, `${f}.pos`);
      if (a.radius !== undefined) num(a.radius, `${f}.radius`, 0.5, 32);
      return;
    case "mine":
      if (a.unit_number !== undefined) int(a.unit_number, `${f}.unit_number`, 1);
      else {
        position(a.pos, `${f}.pos`);
        str(a.name, `${f}.name`, 1, 200);
      }
      if (a.count !== undefined) int(a.count, `${f}.count`, 1, 1000);
      return;
    case "craft":
      str(a.recipe, `${f}.recipe`, 1, 200);
      if (a.count !== undefined) int(a.count, `${f}.count`, 1, 1000);
      return;
    case "place":
      str(a.item, `${f}.item`, 1, 200);
      position(a.pos, `${f}.pos`);
      return;
    default:
      int(a.unit_number, `${f}.unit_number`, 1);
      str(a.item, `${f}.item`, 1, 200);
      int(a.count, `${f}.count`, 1, 10000);
  }
}

function int(v: Json | undefined, field: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
    throw new BadRequest(field, `${field} must be an integer from ${min} to ${max}`);
  }
  return v;
}
function num(v: Json | undefined, field: string, min: number, max: number): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v < min || v > max) {
    throw new BadRequest(field, `${field} must be a number from ${min} to ${max}`);
  }
  return v;
}
function str(v: Json | undefined, field: string, min: number, max: number): string {
  if (typeof v !== "string" || v.length < min || v.length > max) {
    throw new BadRequest(field, `${field} must be a string of ${min} to ${max} characters`);
  }
  return v;
}
function position(v: Json | undefined, field: string): Pos {
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new BadRequest(field, `${field} must be {x, y}`);
  return { x: num(v.x, `${field}.x`, -1e6, 1e6), y: num(v.y, `${field}.y`, -1e6, 1e6) };
}

/** JSON with sorted keys, so deep-equal args compare equal whatever their key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}
