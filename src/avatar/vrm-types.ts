import type { HumanoidHumanBoneName } from "@pixiv/types-vrmc-vrm-1.0";
import type * as THREE from "three";

// @pixiv/three-vrm ships declaration files with extensionless directory re-exports, which the repo's
// NodeNext resolution cannot follow: its classes come through as `any` and VRMUtils not at all.
// This file states the slice of the API the stage uses, so the stage stays type-checked.

/** A humanoid bone name of VRM 1.0. */
export type HumanBoneName = HumanoidHumanBoneName;

/** The expression slice of three-vrm's VRMExpression. */
export interface StageExpression {
  expressionName: string;
  weight: number;
}

/** The slice of three-vrm's VRM instance that the stage uses. */
export interface StageVRM {
  scene: THREE.Group;
  meta: { metaVersion: "0" | "1"; name?: string; title?: string };
  humanoid: { getNormalizedBoneNode(name: HumanBoneName): THREE.Object3D | null };
  expressionManager?: {
    expressions: StageExpression[];
    getExpression(name: string): StageExpression | null;
    setValue(name: string, weight: number): void;
  };
  lookAt?: { target?: THREE.Object3D | null };
  springBoneManager?: { reset(): void };
  update(delta: number): void;
}

/** The slice of three-vrm-animation's VRMAnimation the stage passes around. */
export interface StageVRMAnimation {
  duration: number;
}

declare module "@pixiv/three-vrm" {
  export class VRMExpression extends THREE.Object3D {
    constructor(expressionName: string);
    expressionName: string;
    weight: number;
  }
  export class VRMExpressionManager {
    get expressions(): VRMExpression[];
    registerExpression(expression: VRMExpression): void;
    getExpression(name: string): VRMExpression | null;
    getValue(name: string): number | null;
    setValue(name: string, weight: number): void;
    update(): void;
  }
  export const VRMUtils: {
    deepDispose(object: THREE.Object3D): void;
    rotateVRM0(vrm: StageVRM): void;
  };
}
