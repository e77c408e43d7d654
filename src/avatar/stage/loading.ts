/** The stage's loads of models and clips: the newest load wins; a superseded or late one is freed, never shown. */

import { checkModelBytes } from "../model-file.ts";
import type { LoadResult } from "../stage.ts";
import type { StageVRMAnimation as VRMAnimation } from "../vrm-types.ts";
import {
  animationOf,
  type createModelParser,
  describeError,
  discardParsed,
  LOAD_ERRORS,
  type ParsedFile,
  type prepareModel,
  type Source,
} from "./load.ts";
import type { LoadedModel } from "./model.ts";

/** load() and loadClip(): the newest load wins; a superseded or late one is freed, never shown. */
export function createLoading(deps: {
  parse: ReturnType<typeof createModelParser>;
  files: Map<string, VRMAnimation>;
  prepare: (gltf: ParsedFile) => ReturnType<typeof prepareModel>;
  disposed: () => boolean;
  show: (m: LoadedModel) => void;
  clipLoaded: (clipId: string) => void;
}) {
  let loadSeq = 0;
  return {
    async load(source: Source): Promise<LoadResult> {
      const id = ++loadSeq;
      if (typeof source !== "string") {
        // Bytes from the user: a quick structural check gives a clearer message than the glTF parser.
        const check = checkModelBytes(source instanceof Uint8Array ? source : new Uint8Array(source));
        if (!check.ok) throw new Error(check.error);
      }
      let gltf: ParsedFile;
      try {
        gltf = await deps.parse(source);
      } catch (err) {
        if (id !== loadSeq) return { status: "superseded" };
        throw new Error(`${LOAD_ERRORS.unreadable}${describeError(err)}`);
      }
      if (id !== loadSeq || deps.disposed()) {
        discardParsed(gltf);
        return { status: "superseded" };
      }
      const { model, specVersion } = deps.prepare(gltf);
      deps.show(model);
      return { status: "loaded", name: model.name, specVersion };
    },
    async loadClip(clipId: string, source: Source): Promise<void> {
      const gltf = await deps.parse(source).catch((err: unknown) => {
        throw new Error(`${LOAD_ERRORS.unreadableClip}${describeError(err)}`);
      });
      deps.files.set(clipId, animationOf(gltf));
      deps.clipLoaded(clipId);
    },
    /** Every load under way ends superseded (dispose). */
    cancel() {
      loadSeq++;
    },
  };
}
