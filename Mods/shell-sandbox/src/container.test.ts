// No Docker engine runs here, so the container files are checked as far as this machine allows: the
// compose file against the Compose schema and lint rules (dclint), the Dockerfile with a Dockerfile
// validator (dockerfile-utils), and both read for the spec's boundary: loopback-only publishing,
// no capabilities, no new privileges, the operator's directory at /workspace, and a reproducible
// install whose lock matches the packages it installs.
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { DockerfileParser } from "dockerfile-ast";
import { validate } from "dockerfile-utils";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CONTAINER_WORKSPACE, DEFAULT_PORT } from "./config.ts";

const modDir = path.resolve(import.meta.dirname, "..");
const modsDir = path.dirname(modDir);
const repoRoot = path.dirname(modsDir);
const composePath = path.join(modsDir, "docker-compose.yml");
const dockerfilePath = path.join(modDir, "Dockerfile");

interface ComposeService {
  build: { context: string; additional_contexts?: Record<string, string>; dockerfile?: string };
  ports: string[];
  volumes: { type: string; source: string; target: string }[];
  user?: string;
  cap_drop: string[];
  security_opt: string[];
  network_mode?: string;
  networks?: string[];
  privileged?: boolean;
}

const compose = parse(readFileSync(composePath, "utf8")) as {
  services: Record<string, ComposeService>;
  networks?: Record<string, unknown>;
};
const service = compose.services["shell-sandbox"] as ComposeService;
const dockerfileText = readFileSync(dockerfilePath, "utf8");
const dockerfile = DockerfileParser.parse(dockerfileText);
const argsOf = (i: { getArguments(): { getValue(): string }[] }) => i.getArguments().map((a) => a.getValue());
const jsonArgs = (i: { getArgumentsContent(): string | null }) =>
  JSON.parse(i.getArgumentsContent() ?? "[]") as string[];

describe("Mods/docker-compose.yml", () => {
  it("passes dclint (the Compose schema and its lint rules) without a problem", async () => {
    const dclint = path.join(repoRoot, "node_modules", "dclint", "bin", "dclint.cjs");
    // Biome formats the YAML (double quotes) and dclint's quoting rule wants single ones: Biome owns quoting.
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [
      dclint,
      composePath,
      "--color=false",
      "--disable-rule=require-quotes-in-ports",
    ]);
    expect(`${stdout}${stderr}`.trim()).toBe("");
  });

  it("publishes the mod on the host's 127.0.0.1 only", () => {
    expect(service.ports).toEqual([`127.0.0.1:${DEFAULT_PORT}:${DEFAULT_PORT}`]);
    expect(service.network_mode).toBeUndefined();
  });

  it("puts the mod on a network of its own, which no other service joins", () => {
    expect(service.networks).toEqual(["shell-sandbox"]);
    expect(Object.keys(compose.networks ?? {})).toContain("shell-sandbox");
    for (const [name, other] of Object.entries(compose.services)) {
      if (name === "shell-sandbox") continue;
      expect(other.networks ?? [], name).not.toContain("shell-sandbox");
      expect(other.network_mode, name).toBeUndefined();
    }
  });

  it("runs as root without capabilities and without a way to gain privileges", () => {
    expect(service.cap_drop).toEqual(["ALL"]);
    expect(service.security_opt).toContain("no-new-privileges:true");
    expect(service.privileged).toBeUndefined();
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Compose interpolation, written as compose reads it
    expect(service.user).toBe("${SHELL_SANDBOX_USER:-0:0}");
  });

  it("bind-mounts the directory the operator names, and nothing else, at the workspace", () => {
    expect(service.volumes).toEqual([
      {
        type: "bind",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: Compose interpolation, written as compose reads it
        source: "${SHELL_SANDBOX_DIR:?set SHELL_SANDBOX_DIR to the directory the agent may use}",
        target: CONTAINER_WORKSPACE,
      },
    ]);
  });

  it("builds from the mod's own folder, with the mod kit as a named context", () => {
    expect(path.resolve(modsDir, service.build.context)).toBe(modDir);
    expect(service.build.dockerfile).toBeUndefined();
    expect(existsSync(dockerfilePath)).toBe(true);
    const kit = service.build.additional_contexts?.["mod-kit"];
    expect(kit).toBeDefined();
    expect(existsSync(path.join(modsDir, kit ?? "", "package.json"))).toBe(true);
  });
});

describe("Mods/shell-sandbox/Dockerfile", () => {
  it("passes dockerfile-utils' validation with no diagnostic", () => {
    expect(validate(dockerfileText)).toEqual([]);
  });

  it("copies only files that exist in its contexts and are not excluded", () => {
    const ignored = readFileSync(path.join(modDir, ".dockerignore"), "utf8")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "" && !l.startsWith("#"));
    const copies = dockerfile.getCOPYs();
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      const from = copy.getFromFlag()?.getValue() ?? undefined;
      const contextDir =
        from === undefined ? modDir : path.resolve(modsDir, service.build.additional_contexts?.[from] ?? "");
      const sources = argsOf(copy).slice(0, -1);
      for (const src of sources) {
        expect(existsSync(path.join(contextDir, src)), `${from ?? "context"}:${src}`).toBe(true);
        if (from === undefined) expect(ignored, src).not.toContain(src);
      }
    }
  });

  it("starts the server in container mode on the port compose publishes, under tini", () => {
    const cmd = jsonArgs(dockerfile.getCMDs()[0] ?? { getArgumentsContent: () => null });
    expect(cmd).toContain("--container");
    expect(cmd[cmd.indexOf("--port") + 1]).toBe(String(DEFAULT_PORT));
    const entry = cmd.find((a) => a.endsWith("main.ts")) ?? "";
    // The CMD's script is where `COPY src Mods/shell-sandbox/src` puts src/main.ts.
    expect(entry).toBe("Mods/shell-sandbox/src/main.ts");
    expect(existsSync(path.join(modDir, "src", "main.ts"))).toBe(true);
    // Commands get a clean environment: the image's settings for them are passed on by name.
    const passed = cmd.flatMap((a, i) => (a === "--env" ? [cmd[i + 1]] : []));
    const env = dockerfile.getInstructions().filter((i) => i.getKeyword() === "ENV");
    const envNames = env.flatMap(argsOf).flatMap((a) => (a.includes("=") ? [a.split("=")[0]] : []));
    expect(envNames.sort()).toEqual(["COREPACK_ENABLE_DOWNLOAD_PROMPT", "PIP_BREAK_SYSTEM_PACKAGES"]);
    expect(passed.sort()).toEqual(envNames);
    const expose = dockerfile.getInstructions().filter((i) => i.getKeyword() === "EXPOSE");
    expect(expose.flatMap(argsOf)).toEqual([String(DEFAULT_PORT)]);
    expect(jsonArgs(dockerfile.getENTRYPOINTs()[0] ?? { getArgumentsContent: () => null })).toEqual([
      "/usr/bin/tini",
      "--",
    ]);
    expect(dockerfileText).toMatch(/apt-get install[^\n]*\\\n(?:[^\n]*\\\n)*[^\n]*\btini\b/);
  });

  it("is based on Node 20, the project's Node", () => {
    expect(dockerfile.getFROMs().map((f) => f.getImage())).toEqual(["node:20-bookworm-slim"]);
  });
});

describe("the image's npm lock (docker/package-lock.json)", () => {
  type Pkg = { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  const lock = JSON.parse(readFileSync(path.join(modDir, "docker", "package-lock.json"), "utf8")) as {
    packages: Record<string, Pkg>;
  };
  const own = (dir: string) => JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as Pkg;

  it.each([
    ["Mods/shell-sandbox", modDir],
    ["Mods/mod-kit", path.join(modsDir, "mod-kit")],
  ])("records exactly the dependencies of %s (else: bash docker/update-lock.sh)", (key, dir) => {
    // The image's manifests are these without devDependencies (docker/strip-dev.mjs).
    const locked = lock.packages[key];
    expect(locked?.dependencies ?? {}).toEqual(own(dir).dependencies ?? {});
    expect(locked?.devDependencies).toBeUndefined();
  });
});
