/**
 * Framing (docs/avatar.md "API", `framing`): the camera fits the model by its idle-stance bounds, the whole body
 * or head and shoulders, on any canvas shape. While she lies on the bed the camera pulls back to frame her lying
 * across it, moving there smoothly.
 */
import * as THREE from "three";
import { BED } from "../motions.ts";
import type { StageVRM as VRM } from "../vrm-types.ts";
import { D2R } from "./clips.ts";

/** How the camera frames the character. */
export type Framing = "full" | "bust";

interface Bounds {
  box: THREE.Box3;
  head: THREE.Vector3 | undefined;
  /** The hips' height above her feet: the unit of the bed (motions.ts BED). */
  hips: number;
}
interface CameraPose {
  position: THREE.Vector3;
  target: THREE.Vector3;
  near: number;
  far: number;
}

/** Share of the view's height under her feet when she stands framed whole (her height and 8 %, centred). */
const FLOOR_MARGIN = 0.04 / 1.08;
/** Per second: how quickly the camera closes the gap to a new framing (about 95 % in a second). */
const CAMERA_EASE = 3;

export function createFraming(camera: THREE.PerspectiveCamera, framing: Framing) {
  // Bounds of each model in its idle stance (skinned vertices, not the T-pose), measured once at load
  // so framing never jumps with a motion.
  const boundsCache = new WeakMap<VRM, Bounds>();
  const bounds = (vrm: VRM): Bounds => {
    let b = boundsCache.get(vrm);
    if (!b) {
      vrm.scene.updateMatrixWorld(true);
      const box = new THREE.Box3().setFromObject(vrm.scene, true);
      const hips = vrm.humanoid.getNormalizedBoneNode("hips")?.getWorldPosition(new THREE.Vector3());
      b = {
        box,
        head: vrm.humanoid.getNormalizedBoneNode("head")?.getWorldPosition(new THREE.Vector3()),
        hips: hips ? hips.y - box.min.y : (box.max.y - box.min.y) / 2,
      };
      boundsCache.set(vrm, b);
    }
    return b;
  };
  const target = new THREE.Vector3(0, 1, 0);
  let lying = false;
  let goal: CameraPose | null = null;

  /** Where the camera goes for the model's idle-stance bounds: the whole body, or head and shoulders. */
  const poseFor = (vrm: VRM): CameraPose => {
    const { box: stand, head, hips } = bounds(vrm);
    const box = lying ? lyingBox(stand, hips) : stand;
    const size = box.getSize(new THREE.Vector3());
    const vfov = camera.fov * D2R;
    let height = size.y * 1.08;
    let centreY = (box.min.y + box.max.y) / 2;
    if (framing === "bust" && head && !lying) {
      const top = box.max.y;
      const bottom = head.y - (top - head.y) * 0.75;
      height = (top - bottom) * 1.15;
      centreY = (top + bottom) / 2;
    }
    // Fit the height, and also the width (hair, hands) on narrow canvases.
    const width = size.x * 1.1;
    const distH = height / 2 / Math.tan(vfov / 2);
    const distW = width / 2 / Math.tan(vfov / 2) / camera.aspect;
    const dist = Math.max(distH, distW, 0.3);
    if (lying) {
      // The bed stands on the floor where her feet stood (the host keeps her window's bottom there): the floor as
      // far above the canvas bottom as when she stands, whatever room the width's fit leaves above her.
      const half = dist * Math.tan(vfov / 2);
      centreY = box.min.y + half - 2 * half * FLOOR_MARGIN;
    }
    const t = new THREE.Vector3((box.min.x + box.max.x) / 2, centreY, (box.min.z + box.max.z) / 2);
    return {
      position: new THREE.Vector3(t.x, t.y, t.z + dist),
      target: t,
      near: Math.max(0.01, dist / 50),
      far: dist * 10,
    };
  };
  const apply = (p: CameraPose) => {
    camera.position.copy(p.position);
    target.copy(p.target);
    camera.near = p.near;
    camera.far = p.far;
    camera.lookAt(target);
    camera.updateProjectionMatrix();
  };

  return {
    target,
    bounds,
    /** Frames `vrm` at once (a load, a resize). */
    frame(vrm: VRM) {
      goal = poseFor(vrm);
      apply(goal);
    },
    /** Frames her lying across the bed, or standing; the camera moves there over about a second (step). */
    setLying(on: boolean, vrm: VRM | null) {
      if (on === lying) return;
      lying = on;
      goal = vrm ? poseFor(vrm) : null;
    },
    /** Moves the camera toward its framing; true while it is still on its way. */
    step(dt: number): boolean {
      if (!goal) return false;
      const gap = camera.position.distanceTo(goal.position) + target.distanceTo(goal.target);
      if (gap < 1e-4) return false;
      const k = 1 - Math.exp(-CAMERA_EASE * dt);
      apply({
        position: camera.position.clone().lerp(goal.position, k),
        target: target.clone().lerp(goal.target, k),
        near: THREE.MathUtils.lerp(camera.near, goal.near, k),
        far: THREE.MathUtils.lerp(camera.far, goal.far, k),
      });
      return true;
    },
  };
}
export type StageFraming = ReturnType<typeof createFraming>;

/**
 * The space of the bed scene: the bed's length across (her lying length and a little, in units of her hips'
 * height `hips`), up to her head sitting on it, from the floor. The width decides in a portrait window, so the bed
 * spans it and she lies as large as it allows.
 */
function lyingBox(stand: THREE.Box3, hips: number): THREE.Box3 {
  const half = (BED.length / 2) * hips;
  const cx = (stand.min.x + stand.max.x) / 2;
  return new THREE.Box3(
    new THREE.Vector3(cx - half, stand.min.y, stand.min.z),
    new THREE.Vector3(cx + half, stand.min.y + (BED.height + 1) * hips, stand.max.z),
  );
}
