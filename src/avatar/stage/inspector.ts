/**
 * The stage's inspection (`inspect()`, for tests and diagnostics): a snapshot of what is loaded, drawn and
 * playing. It holds no state of its own beyond the event log, which keeps only the latest EVENTS_KEPT events, so
 * a long-running page does not grow with it.
 */
import type * as THREE from "three";
import type { StageEvent, StageInspection } from "../stage.ts";
import type { HumanBoneName as VRMHumanBoneName } from "../vrm-types.ts";
import type { LoadedModel } from "./model.ts";

/** How many of the latest events inspect() lists. */
export const EVENTS_KEPT = 200;

/** The bones whose rotations inspect() lists. */
const INSPECTED_BONES: VRMHumanBoneName[] = [
  "hips",
  "spine",
  "head",
  "leftUpperArm",
  "rightUpperArm",
  "leftLowerArm",
  "rightLowerArm",
  "leftUpperLeg",
  "rightUpperLeg",
  "leftLowerLeg",
  "rightLowerLeg",
];

/** The stage's event log: what it started, with the frame it happened on (the latest EVENTS_KEPT). */
export function createEventLog() {
  const events: StageEvent[] = [];
  return {
    push(e: StageEvent) {
      events.push(e);
      if (events.length > EVENTS_KEPT) events.splice(0, events.length - EVENTS_KEPT);
    },
    list: (): StageEvent[] => [...events],
  };
}

/** What inspect() reads besides the model. */
export interface InspectSource {
  model: LoadedModel | null;
  renderer: THREE.WebGLRenderer;
  camera: THREE.Camera;
  cameraTarget: THREE.Vector3;
  state: Pick<
    StageInspection,
    "running" | "frames" | "interval" | "emotion" | "posture" | "bed" | "dozing" | "dozeLevel" | "events"
  >;
}

/** A snapshot of the stage now. */
export function inspectStage(src: InspectSource): StageInspection {
  const m = src.model;
  const expressions: Record<string, number> = {};
  const morphs: Record<string, number[]> = {};
  if (m?.vrm.expressionManager) {
    for (const e of m.vrm.expressionManager.expressions) expressions[e.expressionName] = e.weight;
  }
  m?.vrm.scene.traverse((o: THREE.Object3D) => {
    const mesh = o as THREE.Mesh;
    if (mesh.isMesh && mesh.morphTargetInfluences && !(mesh.name in morphs)) {
      morphs[mesh.name] = [...mesh.morphTargetInfluences];
    }
  });
  const info = src.renderer.info;
  return {
    loaded: m?.name ?? null,
    running: src.state.running,
    frames: src.state.frames,
    interval: src.state.interval,
    emotion: src.state.emotion,
    motion: m?.motion?.id ?? null,
    motionTime: m?.motion?.time ?? 0,
    posture: src.state.posture,
    bed: src.state.bed,
    dozing: src.state.dozing,
    dozeLevel: src.state.dozeLevel,
    expressions,
    morphs,
    renderer: {
      geometries: info.memory.geometries,
      textures: info.memory.textures,
      programs: info.programs?.length ?? 0,
      calls: info.render.calls,
      triangles: info.render.triangles,
    },
    camera: {
      position: src.camera.position.toArray() as [number, number, number],
      target: src.cameraTarget.toArray() as [number, number, number],
    },
    bones: Object.fromEntries(
      INSPECTED_BONES.flatMap((b) => {
        const node = m?.vrm.humanoid.getNormalizedBoneNode(b);
        return node ? [[b, node.quaternion.toArray() as [number, number, number, number]]] : [];
      }),
    ),
    events: src.state.events,
  };
}
