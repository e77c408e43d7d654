// One X connection through the `x11` package (a pure-JS protocol client: no child process, no native
// module), with the requests the window model needs as promises (docs/body.md "X11").
import x11, { type GetPropertyReply, type XClient, type XEvent, type XProtocolError } from "x11";

/** X error codes that mean "that window is gone" (it closed between an event and our request). */
const GONE = new Set([3 /* BadWindow */, 9 /* BadDrawable */]);
/** The last of the atoms every X server predefines (XA_LAST_PREDEFINED). */
const LAST_PREDEFINED_ATOM = 68;
/** RandR's GetMonitors (1.5), which the package does not pack. */
const RR_GET_MONITORS = 42;
/** MIT-SCREEN-SAVER's QueryInfo. */
const SAVER_QUERY_INFO = 1;
/** GrabKey's pointer and keyboard mode: events go on as usual while the grab is active. */
const GRAB_ASYNC = 1;
/** How long the server has to accept the connection. */
const CONNECT_MS = 5_000;
/** GetProperty's length limit, in 4-byte units: more than any window property the model reads. */
const PROPERTY_WORDS = 1 << 20;

/** A monitor as RandR 1.5 lists it (xrandr --listactivemonitors shows the same list in the same order). */
export interface RawMonitor {
  name: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A window's absolute place (its border's outer corner, as xwininfo tells it), size and map state. */
export interface XGeometry {
  x: number;
  y: number;
  width: number;
  height: number;
  viewable: boolean;
}

/** An open X connection: the requests of the window model, answering null where the window went away. */
export interface XConnection {
  root: number;
  /** The screen's size, for a server without RandR 1.5 monitors. */
  screen: { width: number; height: number };
  /** Interns the names, in their order. */
  atoms(names: readonly string[]): Promise<number[]>;
  atomName(atom: number): Promise<string>;
  property(wid: number, atom: number): Promise<GetPropertyReply | null>;
  geometry(wid: number): Promise<XGeometry | null>;
  /** The window's ancestor that is a child of the root (the window manager's frame), or null when gone. */
  topLevel(wid: number): Promise<number | null>;
  /** Selects the event mask on the window; false when it is gone. */
  select(wid: number, mask: number): Promise<boolean>;
  /** RandR 1.5's active monitors, or null when the server has no RandR 1.5. */
  monitors(): Promise<RawMonitor[] | null>;
  /**
   * How long ago the user's last input was, in ms (MIT-SCREEN-SAVER's QueryInfo, what `xprintidle` reads), or null
   * when the server has no such extension.
   */
  idleMs(): Promise<number | null>;
  /** Where the pointer is on the root window. */
  pointer(): Promise<{ x: number; y: number }>;
  /** The keyboard's mapping: the keysyms of each keycode from `min`, and the keycodes of each of the 8 modifiers. */
  keyboard(): Promise<{ min: number; keysyms: number[][]; modifiers: number[][] }>;
  /**
   * A passive grab of `keycode` with exactly `modifiers` on the root window (GrabKey, both modes asynchronous):
   * its KeyPress and the KeyRelease that ends it come to `onEvent`. Rejects with the X error (BadAccess: another
   * client holds that key).
   */
  grabKey(keycode: number, modifiers: number): Promise<void>;
  ungrabKey(keycode: number, modifiers: number): void;
  /** A round trip: every event the server sent before it has been handed to `onEvent` when it resolves. */
  sync(): Promise<void>;
  onEvent(fn: (e: XEvent) => void): void;
  /** Called once when the connection fails or the server closes it (not after close()). */
  onLost(fn: (e: Error) => void): void;
  close(): void;
}

/** The event masks the model selects. */
export const MASK = {
  // StructureNotify on the root: RandR tells a monitor set or deleted (xrandr --setmonitor) only by a
  // ConfigureNotify of the root, not by RRScreenChangeNotify.
  root: x11.eventMask.StructureNotify | x11.eventMask.SubstructureNotify | x11.eventMask.PropertyChange,
  client: x11.eventMask.StructureNotify | x11.eventMask.PropertyChange,
};

/** A request as a promise; the package's error is marked handled (else it would also be emitted). */
function ask<T>(fn: (cb: (err: XProtocolError | null, v: T) => boolean) => void): Promise<T> {
  return new Promise((resolve, reject) =>
    fn((err, v) => {
      if (err) reject(err);
      else resolve(v);
      return true;
    }),
  );
}

/** The same, answering null for an error that means the window is gone. */
async function askWindow<T>(
  fn: (cb: (err: XProtocolError | null, v: T) => boolean) => void,
): Promise<T | null> {
  try {
    return await ask(fn);
  } catch (e) {
    if (GONE.has((e as XProtocolError).error)) return null;
    throw e;
  }
}

/** Opens a connection to `display` (":0"); the Xauthority cookie is read as libX11 reads it ($XAUTHORITY). */
export function connectX(display: string): Promise<XConnection> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const client = x11.createClient({ display }, (err, d) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) return reject(new Error(`cannot open the X display ${display}: ${err.message}`));
      const screen = d.screen[0];
      if (!screen) return reject(new Error(`the X display ${display} has no screen`));
      resolve(
        wrap(
          d.client,
          screen.root,
          { width: screen.pixel_width, height: screen.pixel_height },
          { min: d.min_keycode, max: d.max_keycode },
        ),
      );
    });
    // A server that takes the socket but never answers the handshake.
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      try {
        client.terminate();
      } catch {
        // no socket to end
      }
      reject(new Error(`cannot open the X display ${display}: no answer in ${CONNECT_MS / 1000} s`));
    }, CONNECT_MS);
  });
}

function wrap(
  X: XClient,
  root: number,
  screen: { width: number; height: number },
  keycodes: { min: number; max: number },
): XConnection {
  // The package caches interned atoms in one object shared by every connection of the process (4.2.2), so a
  // second server (or the same one restarted) would be handed the first one's ids. Each connection keeps its
  // own cache, from the atoms every server predefines (ids 1-68).
  X.atoms = Object.fromEntries(Object.entries(X.atoms).filter(([, id]) => id <= LAST_PREDEFINED_ATOM));
  let closed = false;
  let lost: ((e: Error) => void) | undefined;
  const lose = (e: Error) => {
    if (closed) return;
    closed = true;
    lost?.(e);
  };
  // Errors of requests sent without a callback, and of the socket. A window gone meanwhile is no failure.
  X.on("error", (e) => {
    if (GONE.has((e as XProtocolError).error)) return;
    if ((e as XProtocolError).error === undefined) lose(e);
  });
  X.on("end", () => lose(new Error("the X server closed the connection")));
  let randr: Promise<{ majorOpcode: number } | null> | undefined;
  let saver: Promise<number | null> | undefined;
  const useRandr = () => {
    randr ??= new Promise((resolve) =>
      X.require("randr", (err, ext) => {
        if (err || ext.major_version < 1 || (ext.major_version === 1 && ext.minor_version < 5)) {
          resolve(null);
          return;
        }
        ext.SelectInput(root, ext.NotifyMask.ScreenChange);
        resolve(ext);
      }),
    );
    return randr;
  };
  return {
    root,
    screen,
    atoms: (names) => Promise.all(names.map((n) => ask<number>((cb) => X.InternAtom(false, n, cb)))),
    atomName: (atom) => ask<string>((cb) => X.GetAtomName(atom, cb)),
    property: (wid, atom) =>
      askWindow<GetPropertyReply>((cb) => X.GetProperty(0, wid, atom, 0, 0, PROPERTY_WORDS, cb)),
    async geometry(wid) {
      const [g, a] = await Promise.all([
        askWindow<{ width: number; height: number; borderWidth: number }>((cb) => X.GetGeometry(wid, cb)),
        askWindow<{ mapState: number }>((cb) => X.GetWindowAttributes(wid, cb)),
      ]);
      if (!g || !a) return null;
      // xwininfo's "Absolute upper-left": the border's outer corner in root coordinates.
      const b = g.borderWidth;
      const t = await askWindow<{ destX: number; destY: number }>((cb) =>
        X.TranslateCoordinates(wid, root, -b, -b, cb),
      );
      if (!t) return null;
      return { x: t.destX, y: t.destY, width: g.width, height: g.height, viewable: a.mapState === 2 };
    },
    async topLevel(wid) {
      let w = wid;
      for (;;) {
        const t = await askWindow<{ parent: number }>((cb) => X.QueryTree(w, cb));
        if (!t) return null;
        if (t.parent === root || t.parent === 0) return w;
        w = t.parent;
      }
    },
    async select(wid, mask) {
      return (
        (await askWindow<undefined>((cb) => X.ChangeWindowAttributes(wid, { eventMask: mask }, cb))) !== null
      );
    },
    async monitors() {
      const ext = await useRandr();
      if (!ext) return null;
      return ask<RawMonitor[]>((cb) => getMonitors(X, ext.majorOpcode, root, cb));
    },
    async idleMs() {
      saver ??= ask<{ present: number; majorOpcode: number }>((cb) =>
        X.QueryExtension("MIT-SCREEN-SAVER", cb),
      ).then((e) => (e.present ? e.majorOpcode : null));
      const opcode = await saver;
      return opcode === null ? null : ask<number>((cb) => queryIdle(X, opcode, root, cb));
    },
    async pointer() {
      const p = await ask<{ rootX: number; rootY: number }>((cb) => X.QueryPointer(root, cb));
      return { x: p.rootX, y: p.rootY };
    },
    async keyboard() {
      const [keysyms, modifiers] = await Promise.all([
        ask<number[][]>((cb) => X.GetKeyboardMapping(keycodes.min, keycodes.max - keycodes.min + 1, cb)),
        ask<number[][]>((cb) => X.GetModifierMapping(cb)),
      ]);
      return { min: keycodes.min, keysyms, modifiers };
    },
    grabKey: (keycode, modifiers) =>
      ask<undefined>((cb) => X.GrabKey(root, 0, modifiers, keycode, GRAB_ASYNC, GRAB_ASYNC, cb)).then(
        () => {},
      ),
    ungrabKey: (keycode, modifiers) => X.UngrabKey(root, keycode, modifiers),
    sync: () => X.sync(),
    onEvent: (fn) => X.on("event", fn),
    onLost(fn) {
      lost = fn;
    },
    close() {
      if (closed) return;
      closed = true;
      X.terminate();
    },
  };
}

/** RRGetMonitors(window, get_active: true), packed and unpacked as the RandR 1.5 protocol describes it. */
function getMonitors(
  X: XClient,
  opcode: number,
  root: number,
  cb: (err: XProtocolError | null, v: RawMonitor[]) => boolean,
): void {
  const b = Buffer.alloc(12);
  b.writeUInt8(opcode, 0);
  b.writeUInt8(RR_GET_MONITORS, 1);
  b.writeUInt16LE(3, 2);
  b.writeUInt32LE(root >>> 0, 4);
  b.writeUInt8(1, 8);
  X.seq_num++;
  X.pack_stream.put(b);
  // The reply after its first 8 bytes: timestamp, nmonitors, noutputs, 12 bytes of pad, then each
  // MONITORINFO (name, primary, automatic, noutput, x, y, width, height, mm, mm, outputs).
  X.replies[X.seq_num] = [
    (buf: Buffer) => {
      const n = buf.readUInt32LE(4);
      const out: RawMonitor[] = [];
      let at = 24;
      for (let i = 0; i < n && at + 24 <= buf.length; i++) {
        out.push({
          name: buf.readUInt32LE(at),
          x: buf.readInt16LE(at + 8),
          y: buf.readInt16LE(at + 10),
          width: buf.readUInt16LE(at + 12),
          height: buf.readUInt16LE(at + 14),
        });
        at += 24 + 4 * buf.readUInt16LE(at + 6);
      }
      return out;
    },
    cb as (err: XProtocolError | null, v: unknown) => boolean,
  ];
  X.pack_stream.submit(true);
}

/** MIT-SCREEN-SAVER's QueryInfo(drawable): the reply's ms-since-user-input, packed as the extension describes it. */
function queryIdle(
  X: XClient,
  opcode: number,
  root: number,
  cb: (err: XProtocolError | null, v: number) => boolean,
): void {
  const b = Buffer.alloc(8);
  b.writeUInt8(opcode, 0);
  b.writeUInt8(SAVER_QUERY_INFO, 1);
  b.writeUInt16LE(2, 2);
  b.writeUInt32LE(root >>> 0, 4);
  X.seq_num++;
  X.pack_stream.put(b);
  // The reply after its first 8 bytes: saver window, ms until the saver, ms since the user's last input, ...
  X.replies[X.seq_num] = [
    (buf: Buffer) => buf.readUInt32LE(8),
    cb as (err: XProtocolError | null, v: unknown) => boolean,
  ];
  X.pack_stream.submit(true);
}
