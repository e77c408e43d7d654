/**
 * Her face's box in the page (docs/desktop.md "Her bubble"): the head bone's place in the frame, with a head's
 * size around it, projected through the camera. Her bubble is placed beside it and never over it. Pure over
 * three.js objects: boxOfPoints is tested without a GPU.
 */
import * as THREE from "three";
import type { PageRect } from "../../protocol/shell.ts";

/** A head's half-size around the point above the head bone (metres, a VRM's scale), hair included. */
const HALF = 0.13;
/** The head's middle above the head bone (the bone is at the neck's top). */
const UP = 0.09;

/** The page box of points given in normalized device coordinates (-1..1), on a canvas at `r`. */
export function boxOfPoints(
  ndc: readonly { x: number; y: number }[],
  r: { left: number; top: number; width: number; height: number },
): PageRect | null {
  if (!ndc.length) return null;
  const xs = ndc.map((p) => r.left + ((p.x + 1) / 2) * r.width);
  const ys = ndc.map((p) => r.top + ((1 - p.y) / 2) * r.height);
  const x0 = Math.min(...xs);
  const y0 = Math.min(...ys);
  return [Math.round(x0), Math.round(y0), Math.round(Math.max(...xs) - x0), Math.round(Math.max(...ys) - y0)];
}

/** The box of her head in the page now, or null without a model (or a head bone). */
export function faceBox(
  head: THREE.Object3D | null | undefined,
  camera: THREE.Camera,
  canvas: HTMLCanvasElement,
): PageRect | null {
  if (!head) return null;
  head.updateWorldMatrix(true, false);
  const ndc: THREE.Vector3[] = [];
  for (const dx of [-HALF, HALF])
    for (const dy of [UP - HALF, UP + HALF])
      for (const dz of [-HALF, HALF])
        ndc.push(head.localToWorld(new THREE.Vector3(dx, dy, dz)).project(camera));
  return boxOfPoints(ndc, canvas.getBoundingClientRect());
}
