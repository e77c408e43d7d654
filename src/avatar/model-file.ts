// A user's own model file: checked before it is stored or shown, and picked or dropped in settings.
// checkModelBytes is pure (browser and Node: the host can run it before writing the data directory).
import { readGlbJson } from "./glb.ts";

/** Largest model file accepted, in bytes. */
export const MAX_MODEL_BYTES = 256 * 1024 * 1024;

/** The messages a rejected model file gets, written once. */
export const MODEL_FILE_ERRORS = {
  empty: "The file is empty.",
  tooLarge: `The file is larger than ${MAX_MODEL_BYTES / 1024 / 1024} MB.`,
  notGlb: "This is not a VRM file (a VRM is a binary glTF starting with 'glTF').",
  corrupt: "The VRM file is damaged: its glTF header or JSON chunk cannot be read.",
  notVrm: "This file is a glTF model but not a VRM avatar (no VRM extension found).",
} as const;

/** What checkModelBytes found. */
export type ModelCheck = { ok: true; name: string; specVersion: "0" | "1" } | { ok: false; error: string };

/** Checks that `bytes` are a VRM 0.x or 1.0 binary glTF and reads its name, without loading it. */
export function checkModelBytes(bytes: Uint8Array): ModelCheck {
  if (bytes.byteLength === 0) return { ok: false, error: MODEL_FILE_ERRORS.empty };
  if (bytes.byteLength > MAX_MODEL_BYTES) return { ok: false, error: MODEL_FILE_ERRORS.tooLarge };
  const glb = readGlbJson(bytes);
  if (!glb.ok) return { ok: false, error: MODEL_FILE_ERRORS[glb.reason] };
  const ext = (glb.json as { extensions?: Record<string, unknown> } | null)?.extensions ?? {};
  const v1 = ext.VRMC_vrm as { meta?: { name?: unknown } } | undefined;
  const v0 = ext.VRM as { meta?: { title?: unknown } } | undefined;
  if (v1) return { ok: true, specVersion: "1", name: typeof v1.meta?.name === "string" ? v1.meta.name : "" };
  if (v0)
    return { ok: true, specVersion: "0", name: typeof v0.meta?.title === "string" ? v0.meta.title : "" };
  return { ok: false, error: MODEL_FILE_ERRORS.notVrm };
}

/** A model file the user chose: its name and bytes, already checked. */
export interface ChosenModel {
  fileName: string;
  bytes: Uint8Array;
  check: ModelCheck;
}

async function readChosen(file: File): Promise<ChosenModel> {
  if (file.size > MAX_MODEL_BYTES) {
    return {
      fileName: file.name,
      bytes: new Uint8Array(),
      check: { ok: false, error: MODEL_FILE_ERRORS.tooLarge },
    };
  }
  const bytes = new Uint8Array(await file.arrayBuffer());
  return { fileName: file.name, bytes, check: checkModelBytes(bytes) };
}

/** Opens the file picker for a .vrm file; resolves null when the user cancels. */
export function pickModelFile(): Promise<ChosenModel | null> {
  return new Promise((resolve) => {
    const input = document.createElement("input");
    input.type = "file";
    input.accept = ".vrm,model/gltf-binary";
    input.addEventListener("change", () => {
      const file = input.files?.[0];
      resolve(file ? readChosen(file) : null);
    });
    input.addEventListener("cancel", () => resolve(null));
    input.click();
  });
}

/** Makes `element` accept a dropped .vrm file; `onModel` gets each dropped file. Returns the detach function. */
export function attachModelDrop(element: HTMLElement, onModel: (model: ChosenModel) => void): () => void {
  const over = (e: DragEvent) => {
    if (e.dataTransfer?.types.includes("Files")) {
      e.preventDefault();
      e.dataTransfer.dropEffect = "copy";
    }
  };
  const drop = (e: DragEvent) => {
    const file = e.dataTransfer?.files[0];
    if (!file) return;
    e.preventDefault();
    void readChosen(file).then(onModel);
  };
  element.addEventListener("dragover", over);
  element.addEventListener("drop", drop);
  return () => {
    element.removeEventListener("dragover", over);
    element.removeEventListener("drop", drop);
  };
}
