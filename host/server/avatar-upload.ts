/**
 * PUT /avatar/<presetId>.vrm: the user's own model for a preset. The bytes are streamed to a temporary file in
 * the data directory (never held in memory: a model may be 256 MB), checked there (a VRM 0.x or 1.0 binary glTF,
 * from its header and JSON chunk), renamed to `avatars/<presetId>.vrm`, and the preset then names that file, so
 * it is that preset's model from then on. One upload at a time: another one meanwhile is answered 429. A refused
 * file leaves the previous model in place.
 */
import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, open, rename, rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { sendJson, sendJsonError } from "@yui/mod-kit";
import { getPreset, type KeyValue, savePreset } from "../../src/app/presets/presets.ts";
import { checkModelBytes, MAX_MODEL_BYTES, MODEL_FILE_ERRORS } from "../../src/avatar/model-file.ts";

const ROUTE = /^\/avatar\/([a-z0-9_-]+)\.vrm$/;

/** The upload's own answers, written once. */
export const UPLOAD_ERRORS = {
  busy: "Another model upload is in progress: try again when it has finished.",
  store: (reason: string) => `could not store the model: ${reason}`,
} as const;

export interface UploadDeps {
  kv: KeyValue;
  dataDir: string;
}

/** Handles a model upload when the request is one (`url`: the request's); false for any other request. */
export function handleAvatarUpload(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  deps: UploadDeps,
  slot: { busy: boolean },
): boolean {
  if (req.method !== "PUT") return false;
  const m = ROUTE.exec(url.pathname);
  if (!m) return false;
  const presetId = m[1]!;
  if (!getPreset(deps.kv, presetId)) {
    req.resume();
    sendJsonError(res, 404, `unknown preset ${presetId}`);
    return true;
  }
  const declared = Number(req.headers["content-length"] ?? Number.NaN);
  if (declared > MAX_MODEL_BYTES) {
    // The rest of an oversized file is not read: the connection ends after the answer.
    sendJsonError(res, 413, MODEL_FILE_ERRORS.tooLarge, { connection: "close" });
    return true;
  }
  if (slot.busy) {
    // Read and dropped (never kept): closing under a client still sending would lose it this answer.
    req.resume();
    sendJsonError(res, 429, UPLOAD_ERRORS.busy, { "retry-after": "5" });
    return true;
  }
  slot.busy = true;
  upload(req, res, presetId, deps)
    .catch((e: unknown) => {
      if (!res.headersSent) sendJsonError(res, 500, UPLOAD_ERRORS.store((e as Error)?.message ?? String(e)));
    })
    .finally(() => {
      slot.busy = false;
    });
  return true;
}

type Received = { ok: true; size: number } | { ok: false; tooLarge: boolean };

/** Streams the body into `file`, at most MAX_MODEL_BYTES; the file is the user's alone. */
function receive(req: IncomingMessage, file: string): Promise<Received> {
  return new Promise((resolve) => {
    const out = createWriteStream(file, { mode: 0o600, flags: "wx" });
    let size = 0;
    let done = false;
    const finish = (r: Received) => {
      if (done) return;
      done = true;
      if (!r.ok) {
        req.unpipe(out);
        req.resume();
        out.destroy();
        resolve(r);
      } else out.end(() => resolve(r));
    };
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_MODEL_BYTES) finish({ ok: false, tooLarge: true });
    });
    req.on("end", () => finish({ ok: true, size }));
    req.on("close", () => finish({ ok: false, tooLarge: false }));
    req.on("error", () => finish({ ok: false, tooLarge: false }));
    out.on("error", () => finish({ ok: false, tooLarge: false }));
    req.pipe(out, { end: false });
  });
}

/** The file's header and JSON chunk: all checkModelBytes reads (at most the whole file). */
async function headOf(file: string, size: number): Promise<Uint8Array> {
  const fh = await open(file, "r");
  try {
    const first = Buffer.alloc(Math.min(20, size));
    await fh.read(first, 0, first.length, 0);
    const jsonLength = first.length >= 16 ? first.readUInt32LE(12) : 0;
    // A JSON chunk longer than the file: the header alone tells checkModelBytes it is damaged.
    if (20 + jsonLength > size) return new Uint8Array(first.buffer, first.byteOffset, first.byteLength);
    const head = Buffer.alloc(Math.min(size, 20 + jsonLength));
    await fh.read(head, 0, head.length, 0);
    return new Uint8Array(head.buffer, head.byteOffset, head.byteLength);
  } finally {
    await fh.close();
  }
}

type Outcome =
  | { status: 200; body: { name: string; specVersion: string; path: string } }
  | { status: 400 | 404 | 413; error: string }
  | null;

// Receives, checks and stores one model; the temporary file is gone before the answer goes out.
async function upload(req: IncomingMessage, res: ServerResponse, presetId: string, deps: UploadDeps) {
  const dir = join(deps.dataDir, "avatars");
  const tmp = join(dir, `.${presetId}.${randomUUID()}.tmp`);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  let outcome: Outcome;
  try {
    outcome = await receiveAndStore(req, presetId, deps, tmp, join(dir, `${presetId}.vrm`));
  } finally {
    await rm(tmp, { force: true });
  }
  if (!outcome) return; // the client went away mid-upload: nobody to answer
  if (outcome.status === 200) return sendJson(res, 200, outcome.body);
  sendJsonError(res, outcome.status, outcome.error, outcome.status === 413 ? { connection: "close" } : {});
}

async function receiveAndStore(
  req: IncomingMessage,
  presetId: string,
  deps: UploadDeps,
  tmp: string,
  file: string,
): Promise<Outcome> {
  const got = await receive(req, tmp);
  if (!got.ok) return got.tooLarge ? { status: 413, error: MODEL_FILE_ERRORS.tooLarge } : null;
  const check = checkModelBytes(got.size === 0 ? new Uint8Array() : await headOf(tmp, got.size));
  if (!check.ok) return { status: 400, error: check.error };
  await rename(tmp, file);
  // The preset as it is now (it may have changed during the upload), naming the new file.
  const preset = getPreset(deps.kv, presetId);
  if (!preset) return { status: 404, error: `unknown preset ${presetId}` };
  savePreset(deps.kv, { ...preset, avatar: file }, "user");
  return { status: 200, body: { name: check.name, specVersion: check.specVersion, path: file } };
}
