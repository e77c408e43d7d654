import * as THREE from "three";

// The head is a sphere narrowed toward the chin; face features are drawn as thin layers on its surface,
// so their morph targets can be authored as 2D shapes and projected.

/** World position of the head's centre (metres). */
export const HEAD_CENTRE = new THREE.Vector3(0, 1.3, 0);
/** Head radius before shaping. */
export const HEAD_RADIUS = 0.15;

const SX = 1.04;
const SZ = 0.95;
const widthAt = (y0: number) => 1 - 0.3 * Math.max(0, -y0) ** 1.6;
const depthAt = (y0: number) => 1 - 0.08 * Math.max(0, -y0) ** 2;

/** Maps a unit-sphere point to the shaped head surface (scaled by `scale`), relative to the head centre. */
export function headSurface(x0: number, y0: number, z0: number, scale = 1): THREE.Vector3 {
  const r = HEAD_RADIUS * scale;
  return new THREE.Vector3(x0 * r * SX * widthAt(y0), y0 * r, z0 * r * SZ * depthAt(y0));
}

/** The point of the head's front surface at face coordinates (x, y) (relative to the head centre), lifted by `lift` along the normal. */
export function facePoint(x: number, y: number, lift: number): { p: THREE.Vector3; n: THREE.Vector3 } {
  const at = (fx: number, fy: number) => {
    const y0 = THREE.MathUtils.clamp(fy / HEAD_RADIUS, -1, 1);
    const x0 = fx / (HEAD_RADIUS * SX * widthAt(y0));
    const z0 = Math.sqrt(Math.max(0, 1 - x0 * x0 - y0 * y0));
    return new THREE.Vector3(fx, fy, z0 * HEAD_RADIUS * SZ * depthAt(y0));
  };
  const p = at(x, y);
  const e = 0.002;
  const dx = at(x + e, y).sub(at(x - e, y));
  const dy = at(x, y + e).sub(at(x, y - e));
  const n = new THREE.Vector3().crossVectors(dx, dy).normalize();
  if (n.z < 0) n.negate();
  return { p: p.addScaledVector(n, lift).add(HEAD_CENTRE), n };
}

/**
 * The shaped head (or a scaled shell of it, e.g. hair) as a geometry in world space, tessellated as a
 * sphere of `around` x `down` segments; `keep` drops triangles (tested on the unit-sphere points).
 */
export function headGeometry(
  scale: number,
  keep?: (p: THREE.Vector3) => boolean,
  around = 44,
  down = 30,
): THREE.BufferGeometry {
  const sphere = new THREE.SphereGeometry(1, around, down);
  const pos = sphere.getAttribute("position");
  const positions: number[] = [];
  const normals: number[] = [];
  for (let i = 0; i < pos.count; i++) {
    const x0 = pos.getX(i);
    const y0 = pos.getY(i);
    const z0 = pos.getZ(i);
    const p = headSurface(x0, y0, z0, scale).add(HEAD_CENTRE);
    positions.push(p.x, p.y, p.z);
    const n = new THREE.Vector3(x0 / SX, y0, z0 / SZ).normalize();
    normals.push(n.x, n.y, n.z);
  }
  const indices: number[] = [];
  const index = sphere.index!;
  const v = new THREE.Vector3();
  for (let i = 0; i < index.count; i += 3) {
    const tri = [index.getX(i), index.getX(i + 1), index.getX(i + 2)];
    if (keep) {
      const ok = tri.every((k) => keep(v.set(pos.getX(k), pos.getY(k), pos.getZ(k))));
      if (!ok) continue;
    }
    indices.push(...tri);
  }
  const g = new THREE.BufferGeometry();
  g.setAttribute("position", new THREE.Float32BufferAttribute(positions, 3));
  g.setAttribute("normal", new THREE.Float32BufferAttribute(normals, 3));
  g.setIndex(indices);
  return g;
}
