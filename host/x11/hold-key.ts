/**
 * A global key held down (docs/voice.md#listening, push-to-talk from anywhere): a passive grab of the key on the
 * root window over an X connection, which gives both its KeyPress and its KeyRelease (Keybinder, the GTK shell's
 * global shortcuts, reports presses only). The grab is made with every combination of the lock modifiers
 * (Caps Lock, Num Lock), which X counts as modifiers like any other, and the server's auto-repeat (a release and
 * a press with the same time while the key stays down) is not taken for a release.
 */
import type { XEvent } from "x11";
import type { XConnection } from "./connection.ts";

/** The modifier bits of the core protocol: Shift, Lock, Control, then Mod1…Mod5. */
const SHIFT = 1;
const LOCK = 2;
const CONTROL = 4;
/** Keysyms the grab looks up in the modifier mapping. */
const KEYSYM = { numLock: 0xff7f, altL: 0xffe9, superL: 0xffeb, space: 0x20, f1: 0xffbe } as const;
/** Where the modifiers usually are, for a mapping that does not say (Alt on Mod1, Num Lock on Mod2, Super on Mod4). */
const USUAL = { alt: 8, numLock: 16, super: 64 } as const;

/** A key with its modifiers, from a GTK accelerator (`<Ctrl><Alt>space`). */
export interface KeyCombo {
  modifiers: ("control" | "alt" | "shift" | "super")[];
  keysym: number;
}

/**
 * Reads a GTK accelerator: `<Ctrl>`/`<Control>`/`<Primary>`, `<Alt>`, `<Shift>`, `<Super>`, then `space`, a
 * letter, a digit or `F1`…`F12`. Null for anything else.
 */
export function parseAccelerator(accel: string): KeyCombo | null {
  const m = /^((?:<[A-Za-z0-9]+>)*)([A-Za-z0-9]+)$/.exec(accel.trim());
  if (!m) return null;
  const modifiers: KeyCombo["modifiers"] = [];
  for (const [, name] of (m[1] ?? "").matchAll(/<([A-Za-z0-9]+)>/g)) {
    const n = name!.toLowerCase();
    const mod =
      n === "ctrl" || n === "control" || n === "primary"
        ? "control"
        : n === "alt" || n === "mod1"
          ? "alt"
          : n === "shift" || n === "super"
            ? n
            : null;
    if (!mod) return null;
    if (!modifiers.includes(mod)) modifiers.push(mod);
  }
  const key = m[2]!;
  const fn = /^F([1-9]|1[0-2])$/i.exec(key);
  let keysym: number;
  if (key.toLowerCase() === "space") keysym = KEYSYM.space;
  else if (fn) keysym = KEYSYM.f1 + Number(fn[1]) - 1;
  else if (key.length === 1) keysym = key.toLowerCase().charCodeAt(0);
  else return null;
  return { modifiers, keysym };
}

/** The keyboard's mapping as XConnection.keyboard() reads it. */
type Keyboard = Awaited<ReturnType<XConnection["keyboard"]>>;

/** The keycode that types `keysym` (unshifted first), or null. */
function keycodeOf(kb: Keyboard, keysym: number): number | null {
  for (const level of [0, 1]) {
    const i = kb.keysyms.findIndex((row) => row[level] === keysym);
    if (i >= 0) return kb.min + i;
  }
  return null;
}

/** The modifier bit (1 << index) whose keys include one that types `keysym`, or `fallback`. */
function modifierOf(kb: Keyboard, keysym: number, fallback: number): number {
  const code = keycodeOf(kb, keysym);
  const i = code === null ? -1 : kb.modifiers.findIndex((keys) => keys.includes(code));
  return i >= 0 ? 1 << i : fallback;
}

/** The grab: the keycode and each modifier state grabbed (the combo's, with and without the locks). */
export function grabsOf(kb: Keyboard, combo: KeyCombo): { keycode: number; states: number[] } | null {
  const keycode = keycodeOf(kb, combo.keysym);
  if (keycode === null) return null;
  const bit = {
    control: CONTROL,
    shift: SHIFT,
    alt: modifierOf(kb, KEYSYM.altL, USUAL.alt),
    super: modifierOf(kb, KEYSYM.superL, USUAL.super),
  };
  const mask = combo.modifiers.reduce((m, k) => m | bit[k], 0);
  const numLock = modifierOf(kb, KEYSYM.numLock, USUAL.numLock);
  const states = [...new Set([0, LOCK, numLock, LOCK | numLock].map((l) => mask | l))];
  return { keycode, states };
}

export interface HeldKey {
  /** Lets the key go (ungrabs it); the connection stays the caller's. */
  close(): void;
}

/**
 * Grabs `accel` on `x`'s root window: `down` when the key is pressed with its modifiers, `up` when it is let go
 * (whatever the modifiers then). Rejects with a sentence when the accelerator cannot be read, the keyboard has no
 * such key, or another program holds it.
 */
export async function holdKey(
  x: XConnection,
  accel: string,
  on: { down(): void; up(): void },
): Promise<HeldKey> {
  const combo = parseAccelerator(accel);
  if (!combo) throw new Error(`${accel} is not a key this shortcut can use (e.g. <Ctrl><Alt>space)`);
  const grab = grabsOf(await x.keyboard(), combo);
  if (!grab) throw new Error(`the keyboard has no key for ${accel}`);
  const made: number[] = [];
  const ungrab = () => {
    for (const s of made.splice(0)) x.ungrabKey(grab.keycode, s);
  };
  try {
    for (const s of grab.states) {
      await x.grabKey(grab.keycode, s);
      made.push(s);
    }
  } catch (e) {
    ungrab();
    throw new Error(`${accel} is held by another program (${(e as Error).message})`);
  }
  let held = false;
  let closed = false;
  /** The time of a release not yet known to be real (auto-repeat sends a press with the same time at once). */
  let release: number | null = null;
  x.onEvent((e: XEvent) => {
    if (closed || e.keycode !== grab.keycode) return;
    if (e.name === "KeyPress") {
      const repeat = release !== null && e.time === release;
      release = null;
      if (repeat || held) return;
      held = true;
      on.down();
    } else if (e.name === "KeyRelease" && held) {
      const t = e.time ?? 0;
      release = t;
      // The server sends an auto-repeat's press with its release: after a round trip it would have come.
      void x.sync().then(() => {
        if (closed || release !== t) return;
        release = null;
        held = false;
        on.up();
      });
    }
  });
  return {
    close() {
      if (closed) return;
      closed = true;
      ungrab();
      if (held) on.up();
    },
  };
}
