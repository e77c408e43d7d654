/** The stage's scene (renderer, camera, lights) and its pointer input on the canvas. */
import * as THREE from "three";

/** The renderer, scene, camera and lights of a stage on `canvas` (transparent background). */
export function createScene(canvas: HTMLCanvasElement, antialias: boolean) {
  const renderer = new THREE.WebGLRenderer({ canvas, alpha: true, antialias, premultipliedAlpha: true });
  renderer.setClearColor(0x000000, 0);
  renderer.outputColorSpace = THREE.SRGBColorSpace;
  const scene = new THREE.Scene();
  const camera = new THREE.PerspectiveCamera(28, 1, 0.05, 50);
  const light = new THREE.DirectionalLight(0xffffff, Math.PI * 0.7);
  light.position.set(0.6, 1.4, 2.2);
  scene.add(light, new THREE.AmbientLight(0xffffff, Math.PI * 0.3));
  return { renderer, scene, camera };
}

/** Pointer input on the canvas: the gaze follows the pointer; a click on the character (not the background) pokes. */
export function attachPointer(
  canvas: HTMLCanvasElement,
  camera: THREE.Camera,
  on: { move(ndc: THREE.Vector2 | null): void; hit(): THREE.Object3D | null; poke(): void },
) {
  const toNdc = (e: PointerEvent) => {
    const r = canvas.getBoundingClientRect();
    return new THREE.Vector2(
      ((e.clientX - r.left) / r.width) * 2 - 1,
      -((e.clientY - r.top) / r.height) * 2 + 1,
    );
  };
  const onMove = (e: PointerEvent) => on.move(toNdc(e));
  const onLeave = () => on.move(null);
  const raycaster = new THREE.Raycaster();
  const onDown = (e: PointerEvent) => {
    const target = on.hit();
    if (!target) return;
    raycaster.setFromCamera(toNdc(e), camera);
    if (raycaster.intersectObject(target, true).length > 0) on.poke();
  };
  canvas.addEventListener("pointermove", onMove);
  canvas.addEventListener("pointerleave", onLeave);
  canvas.addEventListener("pointerdown", onDown);
  return () => {
    canvas.removeEventListener("pointermove", onMove);
    canvas.removeEventListener("pointerleave", onLeave);
    canvas.removeEventListener("pointerdown", onDown);
  };
}
