import { describe, expect, it } from "vitest";
import { microphoneAllowed, permissionAllowed } from "./microphone.ts";

const HOST = "http://127.0.0.1:5174";

describe("the Electron shell's microphone", () => {
  it("goes to the host's own pages, for audio only", () => {
    expect(
      microphoneAllowed({ permission: "media", url: `${HOST}/?view=desktop`, mediaTypes: ["audio"] }, HOST),
    ).toBe(true);
  });

  it("is refused to another origin, to the camera, to other permissions, and when the host is unknown", () => {
    const ask = { permission: "media", url: `${HOST}/`, mediaTypes: ["audio"] };
    expect(microphoneAllowed({ ...ask, url: "http://127.0.0.1:9999/" }, HOST)).toBe(false);
    expect(microphoneAllowed({ ...ask, url: "https://evil.example/" }, HOST)).toBe(false);
    expect(microphoneAllowed({ ...ask, mediaTypes: ["audio", "video"] }, HOST)).toBe(false);
    expect(microphoneAllowed({ ...ask, mediaTypes: ["video"] }, HOST)).toBe(false);
    expect(microphoneAllowed({ ...ask, mediaTypes: [] }, HOST)).toBe(false);
    expect(microphoneAllowed({ ...ask, permission: "geolocation" }, HOST)).toBe(false);
    expect(microphoneAllowed({ ...ask, url: "not a url" }, HOST)).toBe(false);
    expect(microphoneAllowed(ask, undefined)).toBe(false);
  });

  it("leaves other permissions to the host's own pages only", () => {
    expect(permissionAllowed({ permission: "clipboard-sanitized-write", url: `${HOST}/` }, HOST)).toBe(true);
    expect(
      permissionAllowed({ permission: "clipboard-sanitized-write", url: "https://evil.example/" }, HOST),
    ).toBe(false);
    expect(permissionAllowed({ permission: "media", url: `${HOST}/`, mediaTypes: ["video"] }, HOST)).toBe(
      false,
    );
  });
});
