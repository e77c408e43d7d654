import { Document } from "@gltf-transform/core";
import { BONES } from "./character.ts";
import { jsonExtension, writeGlb } from "./write-vrm.ts";

// A VRM Animation (.vrma, VRMC_vrm_animation 1.0) clip of our own: the default character's humanoid skeleton
// at rest, a wave of the right arm with a nod of the head, and the `happy` expression rising with it.

/** Length of the clip in seconds. */
export const VRMA_SECONDS = 1.5;

/** Unit quaternion [x, y, z, w] for `deg` degrees about the unit axis `axis`. */
function quat(axis: [number, number, number], deg: number): number[] {
  const h = (deg * Math.PI) / 360;
  return [axis[0] * Math.sin(h), axis[1] * Math.sin(h), axis[2] * Math.sin(h), Math.cos(h)];
}

/** Keyframes (seconds → rotation) of the bones the clip moves, in their rest-pose local space. */
const ROTATIONS: Record<string, Array<[number, number[]]>> = {
  // From the T-pose: the right arm swings up beside the head, the forearm waves twice.
  rightUpperArm: [
    [0, quat([0, 0, 1], 0)],
    [0.4, quat([0, 0, 1], 60)],
    [1.1, quat([0, 0, 1], 60)],
    [1.5, quat([0, 0, 1], 0)],
  ],
  rightLowerArm: [
    [0, quat([0, 0, 1], 0)],
    [0.4, quat([0, 0, 1], 50)],
    [0.6, quat([0, 0, 1], 20)],
    [0.8, quat([0, 0, 1], 50)],
    [1.0, quat([0, 0, 1], 20)],
    [1.5, quat([0, 0, 1], 0)],
  ],
  head: [
    [0, quat([1, 0, 0], 0)],
    [0.5, quat([1, 0, 0], 12)],
    [1.0, quat([1, 0, 0], -4)],
    [1.5, quat([1, 0, 0], 0)],
  ],
};

/** Builds the .vrma GLB. */
export function writeVrma(): Promise<Uint8Array> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const scene = doc.createScene("Scene");
  doc.getRoot().setDefaultScene(scene);
  doc.getRoot().getAsset().generator = "YUI tools/vrm-gen";

  const humanoid = BONES.filter((b) => b.humanoid);
  const nodes = new Map(humanoid.map((b) => [b.name, doc.createNode(b.name)]));
  for (const b of humanoid) {
    const parent = b.parent ? humanoid.find((p) => p.name === b.parent) : undefined;
    const [px, py, pz] = parent?.pos ?? [0, 0, 0];
    const node = nodes.get(b.name)!;
    node.setTranslation([b.pos[0] - px, b.pos[1] - py, b.pos[2] - pz]);
    if (parent) nodes.get(parent.name)!.addChild(node);
    else scene.addChild(node);
  }
  // VRMC_vrm_animation drives an expression through the x translation of a node of its own (0..1).
  const happy = doc.createNode("happy");
  scene.addChild(happy);

  const accessor = (type: "SCALAR" | "VEC3" | "VEC4", values: number[]) =>
    doc.createAccessor().setType(type).setArray(new Float32Array(values)).setBuffer(buffer);
  const animation = doc.createAnimation("wave");
  const channel = (
    node: ReturnType<typeof doc.createNode>,
    path: "rotation" | "translation",
    keys: Array<[number, number[]]>,
  ) => {
    const sampler = doc
      .createAnimationSampler()
      .setInput(
        accessor(
          "SCALAR",
          keys.map(([t]) => t),
        ),
      )
      .setOutput(
        accessor(
          path === "rotation" ? "VEC4" : "VEC3",
          keys.flatMap(([, v]) => v),
        ),
      )
      .setInterpolation("LINEAR");
    animation.addSampler(sampler);
    animation.addChannel(
      doc.createAnimationChannel().setTargetNode(node).setTargetPath(path).setSampler(sampler),
    );
  };
  for (const [bone, keys] of Object.entries(ROTATIONS)) channel(nodes.get(bone)!, "rotation", keys);
  channel(happy, "translation", [
    [0, [0, 0, 0]],
    [0.5, [1, 0, 0]],
    [1.1, [1, 0, 0]],
    [VRMA_SECONDS, [0, 0, 0]],
  ]);

  const VrmaExt = jsonExtension("VRMC_vrm_animation", (context) => {
    const index = (n: ReturnType<typeof doc.createNode>) => context.nodeIndexMap.get(n)!;
    context.jsonDoc.json.extensions = {
      ...context.jsonDoc.json.extensions,
      VRMC_vrm_animation: {
        specVersion: "1.0",
        humanoid: {
          humanBones: Object.fromEntries([...nodes].map(([name, node]) => [name, { node: index(node) }])),
        },
        expressions: { preset: { happy: { node: index(happy) } } },
      },
    };
  });
  return writeGlb(doc, [VrmaExt]);
}
