import * as THREE from "three";

/** Up to four bone influences for one vertex: bone name and weight. */
export type Influence = ReadonlyArray<readonly [string, number]>;

/** How a part's vertices are bound to bones, decided from their rest-pose position. */
export type SkinFn = (p: THREE.Vector3) => Influence;

/** Triangle geometry plus per-vertex bone influences, in rest-pose world space (metres, +Z forward). */
export interface MeshData {
  positions: number[];
  normals: number[];
  indices: number[];
  influences: Influence[];
}

/** An empty MeshData to append parts to. */
export function emptyMesh(): MeshData {
  return { positions: [], normals: [], indices: [], influences: [] };
}

/** Appends a three.js geometry (transformed by `matrix`) to `out`, binding each vertex with `skin`. */
export function appendGeometry(
  out: MeshData,
  geometry: THREE.BufferGeometry,
  matrix: THREE.Matrix4,
  skin: SkinFn,
): void {
  const g = geometry.index ? geometry : geometry.toNonIndexed();
  g.applyMatrix4(matrix);
  const pos = g.getAttribute("position");
  let nrm = g.getAttribute("normal");
  if (!nrm) {
    g.computeVertexNormals();
    nrm = g.getAttribute("normal");
  }
  const base = out.positions.length / 3;
  const v = new THREE.Vector3();
  const n = new THREE.Vector3();
  for (let i = 0; i < pos.count; i++) {
    v.fromBufferAttribute(pos, i);
    n.fromBufferAttribute(nrm, i).normalize();
    if (!Number.isFinite(n.x) || n.lengthSq() < 0.5) n.set(0, 0, 1);
    out.positions.push(v.x, v.y, v.z);
    out.normals.push(n.x, n.y, n.z);
    out.influences.push(skin(v));
  }
  if (g.index) {
    for (let i = 0; i < g.index.count; i++) out.indices.push(base + g.index.getX(i));
  } else {
    for (let i = 0; i < pos.count; i++) out.indices.push(base + i);
  }
}

/** Binds every vertex fully to one bone. */
export function rigid(bone: string): SkinFn {
  return () => [[bone, 1]];
}

/** Blends linearly between bones placed along one axis (e.g. a torso along Y), by the vertex coordinate. */
export function alongAxis(axis: "x" | "y" | "z", stops: ReadonlyArray<readonly [number, string]>): SkinFn {
  return (p) => {
    const c = p[axis];
    const first = stops[0]!;
    const last = stops[stops.length - 1]!;
    const ascending = last[0] > first[0];
    const inRange = (a: number, b: number) => (ascending ? c >= a && c <= b : c <= a && c >= b);
    if (ascending ? c <= first[0] : c >= first[0]) return [[first[1], 1]];
    for (let i = 0; i < stops.length - 1; i++) {
      const [a, boneA] = stops[i]!;
      const [b, boneB] = stops[i + 1]!;
      if (inRange(a, b)) {
        const t = (c - a) / (b - a);
        return t < 1e-4
          ? [[boneA, 1]]
          : t > 1 - 1e-4
            ? [[boneB, 1]]
            : [
                [boneA, 1 - t],
                [boneB, t],
              ];
      }
    }
    return [[last[1], 1]];
  };
}

/** Cross-section frame of a strand point: where it is, its half width along `side`, half thickness along `up`. */
export interface StrandPoint {
  p: THREE.Vector3;
  side: THREE.Vector3;
  up: THREE.Vector3;
  halfWidth: number;
  halfThickness: number;
}

/** A closed tube with an elliptical cross-section along `points` (hair strands, tails), capped at both ends. */
export function strandGeometry(points: StrandPoint[], sides = 8): THREE.BufferGeometry {
  const positions: number[] = [];
  const indices: number[] = [];
  for (const sp of points) {
    for (let k = 0; k < sides; k++) {
      const a = (k / sides) * Math.PI * 2;
      const q = sp.p
        .clone()
        .addScaledVector(sp.side, Math.cos(a) * sp.halfWidth)
        .addScaledVector(sp.up, Math.sin(a) * sp.halfThickness);
      positions.push(q.x, q.y, q.z);
    }
  }
  // Winding: with side x up along the strand's direction, (a, c, b) faces inward, so flip it.
  const p0 = points[0]!;
  const tangent = points[1]!.p.clone().sub(p0.p);
  const flip = new THREE.Vector3().crossVectors(p0.side, p0.up).dot(tangent) > 0;
  const tri = (x: number, y: number, z: number) => (flip ? indices.push(x, z, y) : indices.push(x, y, z));
  for (let i = 0; i < points.length - 1; i++) {
    for (let k = 0; k < sides; k++) {
      const a = i * sides + k;
      const b = i * sides + ((k + 1) % sides);
      const c = (i + 1) * sides + k;
      const d = (i + 1) * sides + ((k + 1) % sides);
      tri(a, c, b);
      tri(b, c, d);
    }
  }
  // End caps: a fan around each end's centre.
  const capStart = positions.length / 3;
  const first = points[0]!.p;
  positions.push(first.x, first.y, first.z);
  const capEnd = capStart + 1;
  const last = points[points.length - 1]!.p;
  positions.push(last.x, last.y, last.z);
  const lastRing = (points.length - 1) * sides;
  for (let k = 0; k < sides; k++) {
    tri(capStart, k, (k + 1) % sides);
    tri(capEnd, lastRing + ((k + 1) % sides), lastRing + k);
  }
  const g = new THREE.BufferGeometry();
  g.setAttribute("position", new THREE.Float32BufferAttribute(positions, 3));
  g.setIndex(indices);
  g.computeVertexNormals();
  return g;
}
