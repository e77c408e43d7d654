// The slice of the `x11` package (a pure-JS X11 client, used only by the tests) that the test tree
// calls; the package ships no types.
declare module "x11" {
  export interface XEvent {
    name: string;
    wid?: number;
    message_type?: number;
    data?: number[];
  }
  export interface XClient {
    seq_num: number;
    pack_stream: { put(b: Buffer): void; submit(sync?: boolean): void };
    atoms: Record<string, number>;
    AllocID(): number;
    InternAtom(onlyIfExists: boolean, name: string, cb: (err: Error | null, atom: number) => void): void;
    CreateWindow(
      id: number,
      parent: number,
      x: number,
      y: number,
      width: number,
      height: number,
      border: number,
      depth: number,
      cls: number,
      visual: number,
      values: Record<string, number>,
    ): void;
    ChangeProperty(
      mode: number,
      wid: number,
      name: number,
      type: number,
      units: number,
      data: Buffer | number[] | string,
    ): void;
    MapWindow(wid: number): void;
    GetInputFocus(cb: (err: Error | null, focus: { focus: number }) => void): void;
    require(ext: "randr", cb: (err: Error | null, ext: RandrExt) => void): void;
    on(ev: "event", cb: (e: XEvent) => void): void;
    on(ev: "error", cb: (e: Error) => void): void;
    close(cb?: () => void): void;
  }
  export interface RandrExt {
    majorOpcode: number;
    QueryVersion(maj: number, min: number, cb: (err: Error | null, v: number[]) => void): void;
    GetScreenResources(win: number, cb: (err: Error | null, r: { outputs: number[] }) => void): void;
  }
  export interface XDisplay {
    client: XClient;
    screen: { root: number; white_pixel: number }[];
  }
  const x11: {
    createClient(opts: { display?: string }, cb: (err: Error | null, display: XDisplay) => void): XClient;
    eventMask: Record<string, number>;
  };
  export default x11;
}
