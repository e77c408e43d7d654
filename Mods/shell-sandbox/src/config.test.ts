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
      sandboxExplicit: true,
      network: "pasta",
      env: [],
      container: false,
    });
    expect(parseConfig(["--workspace=/w", "--port=0"], {}, notContainer)).toMatchObject({
      workspace: "/w",
      port: 0,
    });
  });

  it("defaults to port 9001 and, outside a container, to bwrap with its own network", () => {
    expect(parseConfig(["--workspace", "/w"], {}, notContainer)).toEqual({
      workspace: "/w",
      port: DEFAULT_PORT,
      sandbox: "bwrap",
      sandboxExplicit: false,
      network: "pasta",
      env: [],
      container: false,
    });
    expect(parseConfig(["--workspace", "/w", "--sandbox", "none"], {}, notContainer)).toMatchObject({
      sandbox: "none",
      sandboxExplicit: true,
    });
    // In the container, the container is the boundary.
    expect(parseConfig(["--container"], {}, container)).toMatchObject({
      sandbox: "none",
      sandboxExplicit: false,
    });
  });

  it("takes --network none and repeated --env names", () => {
    expect(
      parseConfig(
        ["--workspace", "/w", "--network", "none", "--env", "A", "--env=B_2", "--env", "A"],
        {},
        notContainer,
      ),
    ).toMatchObject({ network: "none", env: ["A", "B_2"] });
    expect(() => parseConfig(["--workspace", "/w", "--env", "A=b"], {}, notContainer)).toThrow(
      "--env takes a variable name, got 'A=b'",
    );
    expect(() => parseConfig(["--workspace", "/w", "--network", "host"], {}, notContainer)).toThrow(
      "--network must be pasta or none, got 'host'",
    );
    expect(() =>
      parseConfig(["--workspace", "/w", "--sandbox", "none", "--network", "none"], {}, notContainer),
    ).toThrow(/--network applies to --sandbox bwrap only/);
  });

  it("quotes at most 200 characters of a bad argument", () => {
    const huge = `--${"x".repeat(1_000_000)}`;
    let message = "";
    try {
      parseConfig(["--workspace", "/w", huge], {}, notContainer);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toBe(`unknown argument '--${"x".repeat(198)}…(1000002 characters)'`);
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
