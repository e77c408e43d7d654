// @ts-check
// Her bubble's window (docs/desktop.md "Her bubble"): shows what the shell hands it (`bubble-show`, from her
// page), tells the shell the size it wants (`bubble-size`, which places the window beside her head), and the
// buttons pressed (`bubble-action`). A long reply keeps its newest line in view while it streams, unless the
// user scrolled up with the wheel. A classic script (a module from a file is refused), wrapped in a function.
(() => {
  const el = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
  const box = el("b");
  const text = el("t");
  const cmds = el("cmds");
  const acts = el("acts");
  /** @param {unknown} m */
  const post = (m) =>
    /** @type {{ webkit?: { messageHandlers?: { yui?: { postMessage(s: string): void } } } }} */ (
      /** @type {unknown} */ (window)
    ).webkit?.messageHandlers?.yui?.postMessage(JSON.stringify(m));
  if (new URLSearchParams(location.search).get("opaque") === "1") document.body.classList.add("opaque");

  // Kept at the newest line unless the user scrolled up; a new bubble (not the same text grown) starts there.
  let stick = true;
  let shown = "";
  let lastSize = "";
  const atEnd = () => text.scrollTop + text.clientHeight >= text.scrollHeight - 4;
  /** The size the whole bubble wants (its box with the text unscrolled), and whether its newest line is in view. */
  const report = () => {
    const width = box.offsetWidth;
    const height = box.offsetHeight - text.clientHeight + text.scrollHeight;
    const end = atEnd();
    const s = `${width}x${height}:${end}`;
    if (s === lastSize || width === 0) return;
    lastSize = s;
    post({ type: "bubble-size", width, height, end });
  };
  text.addEventListener("scroll", () => {
    stick = atEnd();
    report();
  });
  const follow = () => {
    if (stick) text.scrollTop = text.scrollHeight;
    report();
  };
  // The shell made the window shorter or taller: the newest line stays in view.
  addEventListener("resize", follow);

  /** @param {import("../contract.ts").Bubble} b */
  const show = (b) => {
    if (!b.text.startsWith(shown) || b.kind === "note") stick = true;
    shown = b.text;
    box.hidden = false;
    box.className = `b ${b.kind}${b.fading ? " fading" : ""}`;
    box.dataset.kind = b.kind;
    box.dataset.streaming = String(b.streaming);
    text.textContent = b.text;
    cmds.replaceChildren(
      ...b.commands.map((c) => {
        const code = document.createElement("code");
        code.textContent = c;
        return code;
      }),
    );
    acts.replaceChildren(
      ...b.actions.map((a) => {
        const button = document.createElement("button");
        button.textContent = a.label;
        button.dataset.action = a.action;
        button.addEventListener("click", () => post({ type: "bubble-action", action: a.action }));
        return button;
      }),
    );
    follow();
  };

  Object.defineProperty(window, "__yuiShell", {
    configurable: true,
    value: (/** @type {{ type?: string, bubble?: import("../contract.ts").Bubble }} */ m) => {
      if (m?.type === "bubble-show" && m.bubble) show(m.bubble);
    },
  });
  post({ type: "hello" });
})();
