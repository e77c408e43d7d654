/**
 * The Linux shell and the microphone (docs/voice.md#listening): under Xvfb with WebKit's mock capture devices,
 * a page of the host's origin (YUI_HOST_ORIGIN, which the host sets when it starts the shell) gets an audio
 * track from getUserMedia; a page of any other origin is refused, and so is the camera.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ShellProcess, spawnShell } from "../../host/desktop/shell-process.ts";
import { startXDesktop, waitFor, type XDesktop } from "./testing/x-desktop.ts";

/** A loopback page that asks for `constraints` and posts what it got back to its own server. */
async function pageServer(): Promise<{ origin: string; results: string[]; server: Server }> {
  const results: string[] = [];
  const server = createServer((req, res) => {
    if (req.method === "POST") {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        results.push(body);
        res.writeHead(204).end();
      });
      return;
    }
    const video = req.url?.includes("camera") ? "true" : "false";
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<!doctype html><script>
      navigator.mediaDevices.getUserMedia({ audio: true, video: ${video} }).then(
        (s) => fetch("/result", { method: "POST", body: "granted " + s.getAudioTracks().length + " audio" }),
        (e) => fetch("/result", { method: "POST", body: "refused " + e.name }),
      );
    </script>`);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return { origin: `http://127.0.0.1:${port}`, results, server };
}

let desk: XDesktop;
let shell: ShellProcess;
let host: Awaited<ReturnType<typeof pageServer>>;
let other: Awaited<ReturnType<typeof pageServer>>;
const log: string[] = [];

beforeAll(async () => {
  desk = await startXDesktop();
  host = await pageServer();
  other = await pageServer();
  shell = spawnShell({
    env: { ...desk.env, YUI_HOST_ORIGIN: host.origin, YUI_SHELL_MOCK_MIC: "1", LIBGL_ALWAYS_SOFTWARE: "1" },
    log: (l) => log.push(l),
  });
  await shell.ready;
}, 60_000);

afterAll(async () => {
  await shell?.stop();
  host?.server.close();
  other?.server.close();
  await desk?.close();
});

const openWindow = (id: string, url: string) =>
  shell.send({ type: "open", id, title: id, url, width: 300, height: 200, frame: true });

describe("the microphone in the GTK shell", () => {
  it("is granted to the host's own page", async () => {
    // Each test reads the answer its own page posts (they run in any order, on the same servers).
    const n = host.results.length;
    openWindow("host-page", `${host.origin}/`);
    const got = await waitFor("the host page's answer", async () => host.results[n]);
    expect(got).toBe("granted 1 audio");
    expect(log.some((l) => l.includes(`microphone granted to ${host.origin}`))).toBe(true);
  }, 60_000);

  it("is refused to a page of another origin, and the camera to every page", async () => {
    const n = other.results.length;
    openWindow("other-page", `${other.origin}/`);
    expect(await waitFor("the other page's answer", async () => other.results[n])).toBe(
      "refused NotAllowedError",
    );
    const m = host.results.length;
    openWindow("camera", `${host.origin}/camera`);
    expect(await waitFor("the camera's answer", async () => host.results[m])).toBe("refused NotAllowedError");
    expect(log.some((l) => l.includes(`microphone refused to ${other.origin}`))).toBe(true);
  }, 60_000);
});
