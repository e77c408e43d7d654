/**
 * PUT /avatar/<presetId>.vrm: the user's own model for a preset. The bytes are checked (a VRM 0.x or 1.0 binary
 * glTF), written into the data directory (`avatars/<presetId>.vrm`, atomically), and the preset then names that
 * file, so it is that preset's model from then on. A refused file leaves the previous model in place.
 */
import { randomUUID } from "node:crypto";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
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

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
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
    return answer(res, 404, { error: `unknown preset ${presetId}` });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_MODEL_BYTES) {
      req.destroy();
      return answer(res, 413, { error: MODEL_FILE_ERRORS.tooLarge });
    }
    chunks.push(chunk as Buffer);
  }
  const bytes = new Uint8Array(Buffer.concat(chunks));
  const check = checkModelBytes(bytes);
  if (!check.ok) return answer(res, 400, { error: check.error });
  const dir = join(deps.dataDir, "avatars");
  const file = join(dir, `${presetId}.vrm`);
  const tmp = join(dir, `.${presetId}.${randomUUID()}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(tmp, bytes, { mode: 0o600 });
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true });
    return answer(res, 500, { error: `could not store the model: ${(e as Error).message}` });
  }
  savePreset(deps.kv, { ...preset, avatar: file }, "user");
  answer(res, 200, { name: check.name, specVersion: check.specVersion, path: file });
}
