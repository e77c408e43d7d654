/**
 * PUT /avatar/<presetId>.vrm: the user's own model for a preset. The bytes are checked (a VRM 0.x or 1.0 binary
 * glTF), written into the data directory (`avatars/<presetId>.vrm`, atomically), and the preset then names that
 * file, so it is that preset's model from then on. A refused file leaves the previous model in place.
 */
import { randomUUID } from "node:crypto";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { BodyTooLargeError, readBody, sendJson, sendJsonError } from "@yui/mod-kit";
import { getPreset, type KeyValue, savePreset } from "../../src/app/presets/presets.ts";
import { checkModelBytes, MAX_MODEL_BYTES, MODEL_FILE_ERRORS } from "../../src/avatar/model-file.ts";

const ROUTE = /^\/avatar\/([a-z0-9_-]+)\.vrm$/;

/** Handles a model upload when the request is one; returns false for any other request. */
export function handleAvatarUpload(
  req: IncomingMessage,
  res: ServerResponse,
  deps: { kv: KeyValue; dataDir: string },
): boolean {
  if (req.method !== "PUT") return false;
  const m = ROUTE.exec(new URL(req.url ?? "/", "http://127.0.0.1").pathname);
  if (!m) return false;
  void upload(req, res, m[1]!, deps);
  return true;
}

async function upload(
  req: IncomingMessage,
  res: ServerResponse,
  presetId: string,
  deps: { kv: KeyValue; dataDir: string },
) {
  const preset = getPreset(deps.kv, presetId);
  if (!preset) {
    req.resume();
    return sendJsonError(res, 404, `unknown preset ${presetId}`);
  }
  let raw: Buffer;
  try {
    // checkModelBytes reads the whole file, so it is held in memory, capped like every body.
    raw = await readBody(req, { limit: MAX_MODEL_BYTES });
  } catch (e) {
    // The rest of an oversized file is not read: the connection ends after the answer.
    if (e instanceof BodyTooLargeError)
      return sendJsonError(res, 413, MODEL_FILE_ERRORS.tooLarge, { connection: "close" });
    return; // the client went away mid-upload: nobody to answer
  }
  const bytes = new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength);
  const check = checkModelBytes(bytes);
  if (!check.ok) return sendJsonError(res, 400, check.error);
  const dir = join(deps.dataDir, "avatars");
  const file = join(dir, `${presetId}.vrm`);
  const tmp = join(dir, `.${presetId}.${randomUUID()}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(tmp, bytes, { mode: 0o600 });
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true });
    return sendJsonError(res, 500, `could not store the model: ${(e as Error).message}`);
  }
  savePreset(deps.kv, { ...preset, avatar: file }, "user");
  sendJson(res, 200, { name: check.name, specVersion: check.specVersion, path: file });
}
