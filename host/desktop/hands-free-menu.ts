/**
 * Hands-free listening from her menu and the tray (docs/voice.md#listening): the entry turns the store's
 * `yui.listen` hands-free on or off (main's page opens or closes the microphone as it follows the store), and
 * the shell is told the switch's state at start and on every change, wherever it was changed, so both menus'
 * entry says what choosing it will do.
 */
import { DEFAULT_LISTEN_SETTINGS, LISTEN_KEYS, ListenSettingsSchema } from "../../src/protocol/listen.ts";
import type { Store } from "../store/store.ts";
import type { ShellProcess } from "./shell-process.ts";

const settingsOf = (store: Store) => {
  const r = ListenSettingsSchema.safeParse(store.get(LISTEN_KEYS.settings));
  return r.success ? r.data : DEFAULT_LISTEN_SETTINGS;
};

/** Follows hands-free for the menus; returns the end. */
export function followHandsFree(shell: Pick<ShellProcess, "send" | "on">, store: Store): () => void {
  let told: boolean | null = null;
  const tell = () => {
    const on = settingsOf(store).hands_free;
    if (on === told) return;
    told = on;
    shell.send({ type: "hands-free", enabled: on });
  };
  tell();
  const offStore = store.onChange((c) => {
    if (c.key === LISTEN_KEYS.settings) tell();
  });
  const offShell = shell.on((m) => {
    if (m.type === "menu" && m.action === "hands-free") {
      const s = settingsOf(store);
      store.set(LISTEN_KEYS.settings, { ...s, hands_free: !s.hands_free }, "user");
    }
  });
  return () => {
    offStore();
    offShell();
  };
}
