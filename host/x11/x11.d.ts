// The slice of the `x11` package (a pure-JS X11 protocol client; it ships no types) that host/x11 calls.
// `seq_num`, `pack_stream` and `replies` are the package's own request machinery: connection.ts uses them for
// the one request the package does not pack itself (RandR's GetMonitors), the way its extension modules do.
declare module "x11" {
  /** An X error as the package reports it (`error`: the X error code). */
  export interface XProtocolError extends Error {
    error: number;
    badParam?: number;
    majorOpcode?: number;
  }
  /** An event as the package parses it; which fields are set depends on `name`. */
  export interface XEvent {
    name: string;
    type: number;
    /** The event window (ConfigureNotify, PropertyNotify) or the window concerned (Map/Unmap/Destroy/Reparent). */
    wid?: number;
    /** ConfigureNotify: the window configured. */
    wid1?: number;
    /** Map/Unmap/Destroy/ReparentNotify: the window the event was selected on. */
    event?: number;
    /** ReparentNotify: the new parent; CreateNotify: the parent. */
    parent?: number;
    /** KeyPress/KeyRelease: the key, the server's time (ms) and the modifiers and buttons down. */
    keycode?: number;
    time?: number;
    buttons?: number;
    /** PropertyNotify: the property, and 0 NewValue / 1 Deleted. */
    atom?: number;
    state?: number;
    x?: number;
    y?: number;
    width?: number;
    height?: number;
    borderWidth?: number;
  }
  export interface GetPropertyReply {
    type: number;
    format: number;
    bytesAfter: number;
    data: Buffer;
  }
  export interface GeometryReply {
    windowid: number;
    xPos: number;
    yPos: number;
    width: number;
    height: number;
    borderWidth: number;
  }
  /** The package's callbacks answer whether they handled an error (otherwise it is emitted as "error"). */
  export type XCallback<T> = (err: XProtocolError | null, value: T) => boolean | undefined;
  export interface XClient {
    seq_num: number;
    pack_stream: { put(b: Buffer): void; submit(expectsReply?: boolean): void };
    replies: Record<number, [(buf: Buffer, opt: number) => unknown, XCallback<unknown>]>;
    atoms: Record<string, number>;
    InternAtom(onlyIfExists: boolean, name: string, cb: XCallback<number>): void;
    GetAtomName(atom: number, cb: XCallback<string>): void;
    GetProperty(
      del: number,
      wid: number,
      name: number,
      type: number,
      longOffset: number,
      longLength: number,
      cb: XCallback<GetPropertyReply>,
    ): void;
    GetGeometry(wid: number, cb: XCallback<GeometryReply>): void;
    GetWindowAttributes(wid: number, cb: XCallback<{ mapState: number }>): void;
    TranslateCoordinates(
      src: number,
      dst: number,
      x: number,
      y: number,
      cb: XCallback<{ destX: number; destY: number; child: number }>,
    ): void;
    QueryTree(wid: number, cb: XCallback<{ root: number; parent: number; children: number[] }>): void;
    ChangeWindowAttributes(wid: number, values: { eventMask?: number }, cb?: XCallback<undefined>): void;
    require(ext: "randr", cb: (err: Error | null, ext: RandrExt) => void): void;
    QueryExtension(name: string, cb: XCallback<{ present: number; majorOpcode: number }>): void;
    GetKeyboardMapping(first: number, count: number, cb: XCallback<number[][]>): void;
    GetModifierMapping(cb: XCallback<number[][]>): void;
    GrabKey(
      wid: number,
      ownerEvents: number,
      modifiers: number,
      keycode: number,
      pointerMode: number,
      keyboardMode: number,
      cb?: XCallback<undefined>,
    ): void;
    UngrabKey(wid: number, keycode: number, modifiers: number): void;
    QueryPointer(wid: number, cb: XCallback<{ rootX: number; rootY: number; sameScreen: number }>): void;
    sync(): Promise<void>;
    on(ev: "event", cb: (e: XEvent) => void): void;
    on(ev: "error", cb: (e: Error) => void): void;
    on(ev: "end", cb: () => void): void;
    close(cb?: (err?: Error) => void): void;
    terminate(): void;
  }
  export interface RandrExt {
    majorOpcode: number;
    major_version: number;
    minor_version: number;
    NotifyMask: { ScreenChange: number };
    SelectInput(win: number, mask: number): void;
  }
  export interface XDisplay {
    client: XClient;
    screen: { root: number; pixel_width: number; pixel_height: number }[];
    min_keycode: number;
    max_keycode: number;
  }
  const x11: {
    createClient(opts: { display?: string }, cb: (err: Error | null, display: XDisplay) => void): XClient;
    eventMask: Record<"StructureNotify" | "SubstructureNotify" | "PropertyChange", number>;
  };
  export default x11;
}
