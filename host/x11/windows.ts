// Other applications' windows and the monitors on X11, kept current from the events of one X connection
// (the `x11` package: no child process, no poll): the root's EWMH properties and structure, each client's
// properties and structure, RandR's monitors (docs/body.md "X11").
import { readFile } from "node:fs/promises";
import type { XEvent } from "x11";
import type { World } from "../../src/body/world.ts";
import { connectX, MASK, type XConnection, type XGeometry } from "./connection.ts";
import {
  atomNames,
  cardinals,
  hexId,
  type PropertyValue,
  type TextTypes,
  text,
  windowIds,
  wmClass,
} from "./decode.ts";
import { assembleWorld, type ClientProps, type ClientReading, type MonitorReading } from "./parse.ts";
import type { WorldWatcher } from "./poll.ts";

/** Reads the process name of a pid (/proc/<pid>/comm), null when there is none. */
export type CommReader = (pid: number) => Promise<string | null>;
export const procComm: CommReader = (pid) =>
  readFile(`/proc/${pid}/comm`, "utf8").then(
    (s) => s.trim() || null,
    () => null,
  );

/** The root's properties the model reads; a PropertyNotify of one reads it again. */
const ROOT_ATOMS = ["_NET_CLIENT_LIST_STACKING", "_NET_CURRENT_DESKTOP", "_NET_WORKAREA"] as const;
type RootAtom = (typeof ROOT_ATOMS)[number];
/** Each client's properties the model reads; a PropertyNotify of one reads it again. */
const CLIENT_ATOMS = [
  "WM_CLASS",
  "_NET_WM_NAME",
  "WM_NAME",
  "_NET_WM_STATE",
  "_NET_WM_DESKTOP",
  "_NET_FRAME_EXTENTS",
  "_NET_WM_PID",
  "_NET_WM_WINDOW_TYPE",
] as const;
type ClientAtom = (typeof CLIENT_ATOMS)[number];
/** The atom values the model looks for in _NET_WM_STATE and _NET_WM_WINDOW_TYPE. */
const NAMED_ATOMS = ["_NET_WM_STATE_HIDDEN", "_NET_WM_WINDOW_TYPE_DESKTOP", "_NET_WM_WINDOW_TYPE_DOCK"];
const TEXT_ATOMS = ["UTF8_STRING", "STRING", "COMPOUND_TEXT"] as const;

/** The atoms of one connection, both ways. */
interface Atoms {
  of: Record<RootAtom | ClientAtom, number>;
  root: Map<number, RootAtom>;
  client: Map<number, ClientAtom>;
  named: Map<number, string>;
  text: TextTypes;
}

async function internAtoms(x: XConnection): Promise<Atoms> {
  const names = [...ROOT_ATOMS, ...CLIENT_ATOMS, ...NAMED_ATOMS, ...TEXT_ATOMS];
  const ids = await x.atoms(names);
  const id = new Map(names.map((n, i) => [n, ids[i]!]));
  const of = Object.fromEntries([...ROOT_ATOMS, ...CLIENT_ATOMS].map((n) => [n, id.get(n)!])) as Atoms["of"];
  return {
    of,
    root: new Map(ROOT_ATOMS.map((n) => [of[n], n])),
    client: new Map(CLIENT_ATOMS.map((n) => [of[n], n])),
    named: new Map(NAMED_ATOMS.map((n) => [id.get(n)!, n])),
    text: { utf8: id.get("UTF8_STRING")!, string: id.get("STRING")!, compound: id.get("COMPOUND_TEXT")! },
  };
}

/** A client as the model holds it: its raw properties, geometry, top-level window and process name. */
interface Client {
  id: number;
  raw: Map<ClientAtom, PropertyValue>;
  geometry: XGeometry | null;
  /** Its ancestor under the root (the window manager's frame, or itself): that window's moves move it. */
  top: number | null;
  comm?: string | null;
  /** Destroyed (a request answered BadWindow); left out until the stacking list drops it. */
  gone: boolean;
}

/** What events said must be read again. */
interface Dirty {
  root: Set<RootAtom>;
  monitors: boolean;
  props: Map<number, Set<ClientAtom>>;
  geometry: Set<number>;
  top: Set<number>;
}
const clean = (): Dirty => ({
  root: new Set(),
  monitors: false,
  props: new Map(),
  geometry: new Set(),
  top: new Set(),
});
const isDirty = (d: Dirty) => d.root.size + d.props.size + d.geometry.size + d.top.size > 0 || d.monitors;

/** A client's properties decoded for the model. */
function decodeClient(raw: Map<ClientAtom, PropertyValue>, a: Atoms): ClientProps {
  return {
    wmClass: wmClass(raw.get("WM_CLASS"), a.text),
    netWmName: text(raw.get("_NET_WM_NAME"), a.text),
    wmName: text(raw.get("WM_NAME"), a.text),
    state: atomNames(raw.get("_NET_WM_STATE"), a.named),
    desktop: cardinals(raw.get("_NET_WM_DESKTOP"))[0] ?? null,
    frameExtents: cardinals(raw.get("_NET_FRAME_EXTENTS")),
    pid: cardinals(raw.get("_NET_WM_PID"))[0] ?? null,
    windowTypes: atomNames(raw.get("_NET_WM_WINDOW_TYPE"), a.named),
  };
}

/**
 * The model of one connection. Each event marks what it changed; one flush (after the events that came
 * together) reads those again with pipelined requests, one round trip, and tells the world if it changed.
 */
class X11Model {
  private readonly rootRaw = new Map<RootAtom, PropertyValue>();
  private monitors: MonitorReading[] = [];
  private readonly clients = new Map<number, Client>();
  private dirty = clean();
  private scheduled = false;
  private flushing = false;
  private idleWaiters: (() => void)[] = [];
  private last = "";
  /** Resolves when the connection is gone: a wait on the server ends then. */
  private readonly ended: Promise<void>;
  private endNow: () => void = () => {};
  /** The last world told, for a watch that joins later. */
  current: World | null = null;

  constructor(
    private readonly x: XConnection,
    private readonly a: Atoms,
    private readonly comm: CommReader,
    private readonly tell: (w: World) => void,
    private readonly fail: (e: unknown) => void,
  ) {
    this.ended = new Promise((resolve) => {
      this.endNow = resolve;
    });
  }

  /** Selects the root's events before the first reading, so that no change falls between the two. */
  async start(): Promise<void> {
    this.x.onEvent((e) => this.handle(e));
    await this.x.select(this.x.root, MASK.root);
    for (const n of ROOT_ATOMS) this.dirty.root.add(n);
    this.dirty.monitors = true;
    this.schedule();
    await this.idle();
  }

  /** Resolves once every event the server sent before this call has been read into the model (or it ended). */
  async refresh(): Promise<void> {
    const read = async () => {
      await this.x.sync();
      await this.idle();
    };
    await Promise.race([read(), this.ended]);
  }

  /** Ends the waits (the connection is gone: no reply and no event will come). */
  end(): void {
    this.endNow();
    for (const w of this.idleWaiters.splice(0)) w();
  }

  private idle(): Promise<void> {
    if (!this.scheduled && !this.flushing) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private handle(e: XEvent): void {
    const d = this.dirty;
    switch (e.name) {
      case "PropertyNotify": {
        const c = this.clients.get(e.wid ?? 0);
        const rootAtom = e.wid === this.x.root ? this.a.root.get(e.atom ?? 0) : undefined;
        const clientAtom = c ? this.a.client.get(e.atom ?? 0) : undefined;
        if (rootAtom) d.root.add(rootAtom);
        else if (c && clientAtom) addTo(d.props, c.id, clientAtom);
        else return;
        break;
      }
      case "ConfigureNotify":
        // The root's own: its size, or RandR's monitors (set or deleted monitors come only this way).
        if (e.wid1 === this.x.root) d.monitors = true;
        else if (!this.moved(e.wid1)) return;
        break;
      case "MapNotify":
      case "UnmapNotify":
        if (!this.moved(e.wid)) return;
        break;
      case "ReparentNotify":
      case "DestroyNotify": {
        const c = this.clients.get(e.wid ?? 0);
        if (!c) return;
        if (e.name === "DestroyNotify") c.gone = true;
        else {
          d.top.add(c.id);
          d.geometry.add(c.id);
        }
        break;
      }
      case "RRScreenChangeNotify":
        d.monitors = true;
        break;
      default:
        return;
    }
    this.schedule();
  }

  /** Marks the geometry of the clients that `wid` (a client or a frame) carries; false when none. */
  private moved(wid: number | undefined): boolean {
    let any = false;
    for (const c of this.clients.values()) {
      if (c.gone || (c.id !== wid && c.top !== wid)) continue;
      this.dirty.geometry.add(c.id);
      any = true;
    }
    return any;
  }

  private schedule(): void {
    // A flush running now reads what was marked meanwhile before it ends.
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (isDirty(this.dirty)) {
        const d = this.dirty;
        this.dirty = clean();
        await this.read(d);
      }
      this.emit();
    } catch (e) {
      this.fail(e);
    } finally {
      this.flushing = false;
      for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  /** Reads what `d` marks, all requests at once; a new stacking list adds and drops clients. */
  private async read(d: Dirty): Promise<void> {
    const jobs: Promise<void>[] = [];
    for (const n of d.root)
      jobs.push(this.x.property(this.x.root, this.a.of[n]).then((v) => void (v && this.rootRaw.set(n, v))));
    if (d.monitors) jobs.push(this.readMonitors());
    for (const [id, names] of d.props) jobs.push(this.readProps(id, names));
    for (const id of d.top) jobs.push(this.readTop(id));
    for (const id of d.geometry) jobs.push(this.readGeometry(id));
    await Promise.all(jobs);
    if (d.root.has("_NET_CLIENT_LIST_STACKING")) this.syncClients();
  }

  private async readProps(id: number, names: Set<ClientAtom>): Promise<void> {
    const c = this.clients.get(id);
    if (!c || c.gone) return;
    const values = await Promise.all([...names].map((n) => this.x.property(id, this.a.of[n])));
    [...names].forEach((n, i) => {
      const v = values[i];
      if (v === null) c.gone = true;
      else if (v) c.raw.set(n, v);
    });
    // The process name stands in for a missing WM_CLASS.
    if (names.has("WM_CLASS") || names.has("_NET_WM_PID")) {
      const props = decodeClient(c.raw, this.a);
      c.comm = !props.wmClass && props.pid !== null ? await this.comm(props.pid) : undefined;
    }
  }

  private async readTop(id: number): Promise<void> {
    const c = this.clients.get(id);
    if (!c || c.gone) return;
    const top = await this.x.topLevel(id);
    if (top === null) c.gone = true;
    else c.top = top;
  }

  private async readGeometry(id: number): Promise<void> {
    const c = this.clients.get(id);
    if (!c || c.gone) return;
    const g = await this.x.geometry(id);
    if (g === null) c.gone = true;
    else c.geometry = g;
  }

  /** RandR 1.5's active monitors in their order; without RandR 1.5, the screen as one monitor. */
  private async readMonitors(): Promise<void> {
    const raw = await this.x.monitors();
    if (raw === null) {
      const g = await this.x.geometry(this.x.root);
      const size = g ? { width: g.width, height: g.height } : this.x.screen;
      this.monitors = [{ name: "screen", rect: { x: 0, y: 0, ...size } }];
      return;
    }
    const names = await Promise.all(raw.map((m) => this.x.atomName(m.name)));
    this.monitors = raw.map((m, i) => ({
      name: names[i]!,
      rect: { x: m.x, y: m.y, width: m.width, height: m.height },
    }));
  }

  /** Follows the stacking list: a new client's events are selected before it is read; a dropped one is let go. */
  private syncClients(): void {
    const ids = new Set(cardinals(this.rootRaw.get("_NET_CLIENT_LIST_STACKING")).filter((id) => id !== 0));
    for (const id of ids) {
      if (this.clients.has(id)) continue;
      this.clients.set(id, { id, raw: new Map(), geometry: null, top: null, gone: false });
      this.x.select(id, MASK.client).catch(this.fail);
      this.dirty.props.set(id, new Set(CLIENT_ATOMS));
      this.dirty.top.add(id);
      this.dirty.geometry.add(id);
    }
    for (const [id, c] of this.clients) {
      if (ids.has(id)) continue;
      this.clients.delete(id);
      // Withdrawn but not destroyed: its events no longer concern the model.
      if (!c.gone) this.x.select(id, 0).catch(this.fail);
    }
  }

  private emit(): void {
    const world = this.world();
    const key = JSON.stringify(world);
    if (key === this.last) return;
    this.last = key;
    this.current = world;
    this.tell(world);
  }

  private world(): World {
    const readings: ClientReading[] = [];
    for (const c of this.clients.values()) {
      if (c.gone || !c.geometry) continue;
      const r: ClientReading = { id: hexId(c.id), props: decodeClient(c.raw, this.a), geometry: c.geometry };
      if (c.comm !== undefined) r.comm = c.comm;
      readings.push(r);
    }
    const root = {
      stacking: windowIds(this.rootRaw.get("_NET_CLIENT_LIST_STACKING")),
      currentDesktop: cardinals(this.rootRaw.get("_NET_CURRENT_DESKTOP"))[0] ?? null,
      workArea: cardinals(this.rootRaw.get("_NET_WORKAREA")),
    };
    return assembleWorld(root, readings, this.monitors);
  }
}

function addTo<K, V>(m: Map<K, Set<V>>, k: K, v: V): void {
  const s = m.get(k);
  if (s) s.add(v);
  else m.set(k, new Set([v]));
}

/** The X11 window model of one display, shared by its watches over one connection. */
export interface X11Desktop {
  /**
   * Tells `onChange` each world that differs from the last (the current one first, once read). The
   * connection opens with the first watch and closes when the last one stops.
   */
  watch(onChange: (world: World) => void): WorldWatcher;
  /** The user's input as the watches' connection reads it (one request each; null with no connection open). */
  input: UserInput;
}

/** The user at the computer: how long since their last input (ms) and where the pointer is, when known. */
export interface UserInput {
  idleMs(): Promise<number | null>;
  pointer(): Promise<{ x: number; y: number } | null>;
}

export interface X11DesktopOptions {
  comm?: CommReader;
  /** The connection could not be opened, failed, or a request failed. */
  onError?: (e: unknown) => void;
  /** How a connection is opened (the tests count them). */
  connect?: (display: string) => Promise<XConnection>;
}

/** The window model of `display` (":0"), from events: at rest it sends no request and starts no process. */
export function x11Desktop(display: string, opts: X11DesktopOptions = {}): X11Desktop {
  type Live = { x: XConnection; model: X11Model };
  const watchers = new Set<(w: World) => void>();
  let session: Promise<Live | null> | null = null;
  const fail = (e: unknown) => opts.onError?.(e);
  const tell = (w: World) => {
    for (const fn of [...watchers]) fn(w);
  };
  const open = (): Promise<Live | null> => {
    const s: Promise<Live | null> = (async () => {
      const x = await (opts.connect ?? connectX)(display);
      const model = new X11Model(x, await internAtoms(x), opts.comm ?? procComm, tell, fail);
      x.onLost((e) => {
        model.end();
        if (session === s) session = null; // a later watch connects again
        fail(e);
      });
      await model.start();
      return { x, model };
    })().catch((e: unknown) => {
      if (session === s) session = null;
      fail(e);
      return null;
    });
    return s;
  };
  /** A request on the open connection, or null (no connection, or it failed). */
  const onLive = async <T>(fn: (x: XConnection) => Promise<T>): Promise<T | null> => {
    const s = await session;
    return s ? fn(s.x).catch(() => null) : null;
  };
  return {
    input: {
      idleMs: () => onLive((x) => x.idleMs()),
      pointer: () => onLive((x) => x.pointer()),
    },
    watch(onChange) {
      // Each watch is told each world once: the first either by the model's first reading or, joining a
      // model already read, by its current world.
      let told: World | null = null;
      const mine = (w: World) => {
        if (w === told) return;
        told = w;
        onChange(w);
      };
      watchers.add(mine);
      session ??= open();
      const live = session;
      void live.then((s) => {
        if (s?.model.current && watchers.has(mine)) mine(s.model.current);
      });
      return {
        async refresh() {
          const s = await live;
          if (s && session === live) await s.model.refresh().catch(fail);
        },
        resume() {},
        stop() {
          if (!watchers.delete(mine) || watchers.size > 0 || session !== live) return;
          session = null;
          void live.then((s) => {
            s?.model.end();
            s?.x.close();
          });
        },
      };
    },
  };
}

/** One reading of `display`'s window model over a connection of its own (for tools and tests). */
export function readWorld(display: string, opts: X11DesktopOptions = {}): Promise<World> {
  return new Promise((resolve, reject) => {
    const watch = x11Desktop(display, { ...opts, onError: reject }).watch((w) => {
      watch.stop();
      resolve(w);
    });
  });
}
