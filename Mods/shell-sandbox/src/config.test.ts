import { describe, expect, it } from "vitest";
import { CONTAINER_WORKSPACE, DEFAULT_PORT, parseConfig, WORKSPACE_ENV } from "./config.ts";

const notContainer = () => false;
const container = () => true;

describe("parseConfig", () => {
  it("takes --workspace, --port and --sandbox", () => {
    expect(
      parseConfig(["--workspace", "/w", "--port", "9100", "--sandbox", "bwrap"], {}, notContainer),
    ).toEqual({
      workspace: "/w",
      port: 9100,
      sandbox: "bwrap",
      container: false,
    });
    expect(parseConfig(["--workspace=/w", "--port=0"], {}, notContainer)).toMatchObject({
      workspace: "/w",
      port: 0,
    });
  });

  it("defaults to port 9001 and no sandbox wrapper", () => {
    expect(parseConfig(["--workspace", "/w"], {}, notContainer)).toEqual({
      workspace: "/w",
      port: DEFAULT_PORT,
      sandbox: "none",
      container: false,
    });
  });

  it("outside a container requires a workspace, from the flag or the environment", () => {
    expect(() => parseConfig([], {}, notContainer)).toThrow(
      `no workspace: pass --workspace DIR or set ${WORKSPACE_ENV}`,
    );
    expect(parseConfig([], { [WORKSPACE_ENV]: "/env" }, notContainer).workspace).toBe("/env");
    expect(parseConfig(["--workspace", "/flag"], { [WORKSPACE_ENV]: "/env" }, notContainer).workspace).toBe(
      "/flag",
    );
  });

  it("in the container defaults the workspace to the bind mount", () => {
    expect(parseConfig(["--container"], {}, container)).toMatchObject({
      workspace: CONTAINER_WORKSPACE,
      container: true,
    });
  });

  it("refuses --container outside a container, and unknown or malformed arguments", () => {
    expect(() => parseConfig(["--container", "--workspace", "/w"], {}, notContainer)).toThrow(
      /not in a container/,
    );
    expect(() => parseConfig(["--workspace", "/w", "--sandbox", "docker"], {}, notContainer)).toThrow(
      "--sandbox must be none or bwrap, got 'docker'",
    );
    expect(() => parseConfig(["--workspace", "/w", "--verbose"], {}, notContainer)).toThrow(
      "unknown argument '--verbose'",
    );
    expect(() => parseConfig(["--workspace"], {}, notContainer)).toThrow("--workspace needs a value");
    expect(() => parseConfig(["--workspace", "/w", "--port", "http"], {}, notContainer)).toThrow(/--port/);
  });
});
