/**
 * Gaze (docs/avatar.md "Idle life"): the eyes follow the pointer over the canvas (or look at the viewer), and the
 * head and neck turn a little with them.
 */
import * as THREE from "three";
import type { PoseOffsets } from "./clips.ts";
import { D2R } from "./clips.ts";
import type { LoadedModel } from "./model.ts";

export function createGaze(scene: THREE.Scene, camera: THREE.Camera) {
  /** What the model's lookAt follows. */
  const target = new THREE.Object3D();
  scene.add(target);
  let pointer: THREE.Vector2 | null = null;
  return {
    target,
    /** A canvas position in normalized device coordinates, or null for the viewer. */
    setPointer(p: THREE.Vector2 | null) {
      pointer = p;
    },
    update(m: LoadedModel, offsets: PoseOffsets) {
      const head = m.vrm.humanoid.getNormalizedBoneNode("head");
      if (!head) return;
      const headPos = head.getWorldPosition(new THREE.Vector3());
      if (pointer) {
        const ray = new THREE.Vector3(pointer.x, pointer.y, 0.5)
          .unproject(camera)
          .sub(camera.position)
          .normalize();
        const dist = camera.position.distanceTo(headPos) * 0.8;
        target.position.copy(camera.position).addScaledVector(ray, dist);
      } else {
        target.position.copy(camera.position);
      }
      const dir = target.position.clone().sub(headPos).normalize();
      const yaw = THREE.MathUtils.clamp(Math.atan2(dir.x, dir.z) / D2R, -30, 30);
      const pitch = THREE.MathUtils.clamp(-Math.asin(dir.y) / D2R, -20, 20);
      offsets.add(m.vrm, "head", pitch * 0.3, yaw * 0.3, 0);
      offsets.add(m.vrm, "neck", pitch * 0.15, yaw * 0.15, 0);
    },
  };
}
