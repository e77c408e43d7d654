/**
 * The desktop app's global hold-to-talk key (docs/voice.md#listening): held, main's window comes forward with her
 * input open and the microphone records; let go, what was said is sent as her next message. The key is grabbed
 * over an X connection of the host's own (host/x11/hold-key.ts: Keybinder, the shell's global shortcuts, hears
 * presses only), and main's page hears it through the shell as `talk` messages.
 */
import { activePresetId } from "../../src/app/presets/presets.ts";
import type { Store } from "../store/store.ts";
import { connectX } from "../x11/connection.ts";
import { holdKey } from "../x11/hold-key.ts";
import type { ShellProcess } from "./shell-process.ts";

/** The key, in GTK's syntax (beside Ctrl+Alt+Y, which opens her input), unless YUI_TALK_KEY names another. */
export const DEFAULT_TALK_KEY = "<Ctrl><Alt>space";

/** The hold key bound, and its end. */
export interface TalkKey {
  accelerator: string;
  close(): void;
}

/**
 * Binds the hold key on `env.DISPLAY` (X11 only: on Wayland and without a display there is none; `YUI_TALK_KEY=off`
 * turns it off). Null with a log line when it cannot be bound.
 */
export async function startTalkKey(o: {
  shell: Pick<ShellProcess, "send">;
  store: Store;
  env: NodeJS.ProcessEnv;
  wayland: boolean;
  log: (line: string) => void;
}): Promise<TalkKey | null> {
  const accel = o.env.YUI_TALK_KEY || DEFAULT_TALK_KEY;
  const display = o.env.DISPLAY;
  if (accel === "off" || process.platform !== "linux" || o.wayland || !display) return null;
  let x: Awaited<ReturnType<typeof connectX>> | null = null;
  try {
    x = await connectX(display);
    const conn = x;
    let id: string | null = null;
    const talk = (down: boolean) => {
      // Main's window at the press; the release goes to the same window.
      if (down) id = activePresetId(o.store);
      if (id) o.shell.send({ type: "talk", id, down });
    };
    const key = await holdKey(conn, accel, { down: () => talk(true), up: () => talk(false) });
    conn.onLost((e) => o.log(`the hold-to-talk key stopped: ${e.message}`));
    return {
      accelerator: accel,
      close() {
        key.close();
        conn.close();
      },
    };
  } catch (e) {
    x?.close();
    o.log(`no hold-to-talk key: ${(e as Error).message}`);
    return null;
  }
}
