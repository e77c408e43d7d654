// Screenshot images: crop a display out of a whole-screen capture and bound the long edge.
import sharp from "sharp";

/** The spec's bound on a screenshot's long edge, in pixels. */
export const LONG_EDGE_PX = 1280;

/** Downscales a PNG so its long edge is at most LONG_EDGE_PX (aspect kept, never enlarged); returns PNG. */
export async function fitLongEdge(
  png: Buffer,
  region?: { x: number; y: number; width: number; height: number },
) {
  let img = sharp(png);
  if (region)
    img = img.extract({ left: region.x, top: region.y, width: region.width, height: region.height });
  return img
    .resize({ width: LONG_EDGE_PX, height: LONG_EDGE_PX, fit: "inside", withoutEnlargement: true })
    .png()
    .toBuffer();
}
