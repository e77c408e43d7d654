/**
 * The bed of go_to_bed (docs/body.md "In main's page"): a low box with a pillow behind where she stands, sized
 * from her hips' height (motions.ts BED, the same numbers her lying clips use). It fades in when the bed scene
 * starts and out when it ends, and exists only while it shows.
 */
import * as THREE from "three";
import { BED } from "../motions.ts";

export function createBed(scene: THREE.Scene) {
  let group: THREE.Group | null = null;
  let materials: THREE.MeshStandardMaterial[] = [];
  let opacity = 0;
  let wanted = false;
  let unit = 0;

  const build = (hipsHeight: number) => {
    const g = new THREE.Group();
    g.name = "yui-bed";
    const frame = new THREE.MeshStandardMaterial({ color: 0x8a6a52, roughness: 0.8, transparent: true });
    const sheet = new THREE.MeshStandardMaterial({ color: 0xeef0f8, roughness: 0.9, transparent: true });
    const pillow = new THREE.MeshStandardMaterial({ color: 0xffffff, roughness: 0.95, transparent: true });
    materials = [frame, sheet, pillow];
    const u = hipsHeight;
    const length = BED.length * u;
    const depth = BED.depth * u;
    const base = new THREE.Mesh(new THREE.BoxGeometry(length, BED.height * u * 0.6, depth), frame);
    base.position.set(0, BED.height * u * 0.3, BED.z * u);
    const mattress = new THREE.Mesh(
      new THREE.BoxGeometry(length * 0.98, BED.height * u * 0.4, depth * 0.96),
      sheet,
    );
    mattress.position.set(0, BED.height * u * 0.8, BED.z * u);
    // The pillow at the screen's left end, where her head lies.
    const p = new THREE.Mesh(new THREE.BoxGeometry(0.35 * u, 0.12 * u, depth * 0.6), pillow);
    p.position.set(-length / 2 + 0.3 * u, BED.height * u + 0.06 * u, BED.z * u);
    g.add(base, mattress, p);
    return g;
  };
  const free = () => {
    if (!group) return;
    scene.remove(group);
    for (const o of group.children) (o as THREE.Mesh).geometry.dispose();
    for (const m of materials) m.dispose();
    group = null;
    materials = [];
  };

  return {
    /** The bed is wanted (fades in) or not (fades out). */
    show(on: boolean) {
      wanted = on;
    },
    /** Fades toward what is wanted; true while it is still fading. */
    step(dt: number, hipsHeight: number | null): boolean {
      if (hipsHeight !== null && group && hipsHeight !== unit) free();
      const to = wanted && hipsHeight !== null ? 1 : 0;
      if (to > opacity) opacity = Math.min(to, opacity + dt / BED.fadeIn);
      else if (to < opacity) opacity = Math.max(to, opacity - dt / BED.fadeOut);
      if (opacity > 0 && !group && hipsHeight !== null) {
        unit = hipsHeight;
        group = build(hipsHeight);
        scene.add(group);
      }
      for (const m of materials) m.opacity = opacity;
      if (opacity === 0) free();
      return opacity !== to;
    },
    /** 0 (no bed) to 1 (fully there). */
    opacity: () => opacity,
    dispose: free,
  };
}
