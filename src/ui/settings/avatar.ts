/** The Avatar field of Settings → Backend: the user's own .vrm, picked or dropped, stored by the host for the preset. */
import type { Preset } from "../../app/presets/preset.ts";
import { attachModelDrop, type ChosenModel, pickModelFile } from "../../avatar/model-file.ts";
import { h } from "../dom.ts";

/** The pick button and drop zone of `p`'s model, with a note saying which model is in use and how a save went. */
export function avatarRow(p: Preset): HTMLElement {
  const note = h(
    "small",
    { "data-testid": "avatar-status", role: "status" },
    p.avatar ? `Your model: ${p.avatar.split(/[\\/]/).pop()}` : "The default character.",
  );
  const useModel = async (m: ChosenModel) => {
    if (!m.check.ok) {
      note.textContent = `${m.fileName}: ${m.check.error} The current model stays.`;
      return;
    }
    note.textContent = `Saving ${m.fileName}…`;
    const res = await fetch(`/avatar/${encodeURIComponent(p.id)}.vrm`, {
      method: "PUT",
      body: new Blob([m.bytes as Uint8Array<ArrayBuffer>]),
    });
    const body = (await res.json().catch(() => ({}))) as { error?: string };
    note.textContent = res.ok
      ? `Your model: ${m.fileName}. The chat shows it from its next load.`
      : `${m.fileName}: ${body.error ?? `not saved (HTTP ${res.status})`} The current model stays.`;
  };
  const row = h(
    "div",
    { class: "row drop", "data-testid": "avatar-drop" },
    h(
      "button",
      {
        type: "button",
        "data-testid": "avatar-pick",
        onclick: () => void pickModelFile().then((m) => m && useModel(m)),
      },
      "Choose a .vrm…",
    ),
    note,
  );
  attachModelDrop(row, (m) => void useModel(m));
  return row;
}
