import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DEFAULT_PRESET } from "../../src/app/presets/preset.ts";
import { getPreset, savePreset } from "../../src/app/presets/presets.ts";
import { MAX_MODEL_BYTES, MODEL_FILE_ERRORS } from "../../src/avatar/model-file.ts";
import { buildCharacter } from "../../tools/vrm-gen/character.ts";
import { writeVrm } from "../../tools/vrm-gen/write-vrm.ts";
import { type Host, startHost } from "./server.ts";
import { hostFetch, rawRequest, secretHeaders } from "./testing.ts";

let MODEL: Buffer;

let dir: string;
let host: Host;
beforeAll(async () => {
  // A VRM 1.0 model of our own (tools/vrm-gen), under a name of its own.
  MODEL = Buffer.from(await writeVrm(buildCharacter(), { name: "Uploaded" }));
  dir = mkdtempSync(join(tmpdir(), "yui-avatar-upload-"));
  host = await startHost({ port: 0, dataDir: dir, env: {}, browserCommands: false });
  savePreset(host.store, { ...DEFAULT_PRESET, id: "mika", name: "Mika" });
});
afterAll(async () => {
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
});

const put = (path: string, body: Uint8Array) =>
  hostFetch(host, path, { method: "PUT", body: Buffer.from(body) });

it("stores the user's model in the data directory and serves it as that preset's model from then on", async () => {
  const res = await put("/avatar/mika.vrm", MODEL);
  expect(res.status).toBe(200);
  const stored = join(dir, "avatars", "mika.vrm");
  expect(await res.json()).toEqual({ name: "Uploaded", specVersion: "1", path: stored });
  expect(getPreset(host.store, "mika")!.avatar).toBe(stored);
  const served = new Uint8Array(await (await hostFetch(host, "/avatar/mika.vrm")).arrayBuffer());
  expect(Buffer.from(served).equals(MODEL)).toBe(true);
});

it("refuses a broken file with a clear message and keeps the previous model", async () => {
  const before = getPreset(host.store, "mika")!.avatar;
  const res = await put("/avatar/mika.vrm", new TextEncoder().encode("not a model at all, just text"));
  expect(res.status).toBe(400);
  expect(await res.json()).toEqual({ error: MODEL_FILE_ERRORS.notGlb });
  expect(getPreset(host.store, "mika")!.avatar).toBe(before);
  const served = new Uint8Array(await (await hostFetch(host, "/avatar/mika.vrm")).arrayBuffer());
  expect(Buffer.from(served).equals(MODEL)).toBe(true);
});

it("answers 413 with the size message to a file over the cap, without reading it, and keeps the previous model", async () => {
  const before = getPreset(host.store, "mika")!.avatar;
  // The length says one byte over 256 MB; only the first bytes are ever sent, so the answer cannot wait for them.
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(new URL("/avatar/mika.vrm", host.url), {
      method: "PUT",
      headers: { "content-length": String(MAX_MODEL_BYTES + 1), ...secretHeaders(host) },
    });
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.write(MODEL.subarray(0, 1024));
  });
  expect(answer).toEqual({ status: 413, body: JSON.stringify({ error: MODEL_FILE_ERRORS.tooLarge }) });
  expect(getPreset(host.store, "mika")!.avatar).toBe(before);
});

it("answers 404 for an unknown preset, and 403 for an upload from another site's page", async () => {
  expect((await put("/avatar/nobody.vrm", MODEL)).status).toBe(404);
  const cross = await rawRequest(
    host.port,
    "/avatar/mika.vrm",
    { Host: `127.0.0.1:${host.port}`, Origin: "https://evil.example" },
    "PUT",
    "x",
  );
  expect(cross.status).toBe(403);
});
