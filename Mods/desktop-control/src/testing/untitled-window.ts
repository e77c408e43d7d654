// A tiny X client for the tests: one top-level window with a WM_CLASS ("untitled", "Untitled") and
// no name at all, which quits when the window manager asks it to (WM_DELETE_WINDOW).
import x11 from "x11";

x11.createClient({}, (err, display) => {
  if (err) throw err;
  const X = display.client;
  const screen = display.screen[0]!;
  const atom = (name: string) =>
    new Promise<number>((resolve, reject) =>
      X.InternAtom(false, name, (e, a) => (e ? reject(e) : resolve(a))),
    );
  void (async () => {
    const [protocols, del, pid] = [
      await atom("WM_PROTOCOLS"),
      await atom("WM_DELETE_WINDOW"),
      await atom("_NET_WM_PID"),
    ];
    const wid = X.AllocID();
    X.CreateWindow(wid, screen.root, 100, 100, 320, 200, 0, 0, 0, 0, {
      backgroundPixel: screen.white_pixel,
      eventMask: x11.eventMask.StructureNotify!,
    });
    X.ChangeProperty(0, wid, X.atoms.WM_CLASS!, X.atoms.STRING!, 8, "untitled\0Untitled\0");
    X.ChangeProperty(0, wid, pid, X.atoms.CARDINAL!, 32, [process.pid]);
    X.ChangeProperty(0, wid, protocols, X.atoms.ATOM!, 32, [del]);
    X.MapWindow(wid);
    X.on("event", (ev) => {
      if (ev.name === "ClientMessage" && ev.message_type === protocols && ev.data?.[0] === del)
        process.exit(0);
    });
  })();
});
