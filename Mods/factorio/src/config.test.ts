import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  configTomlPath,
  DEFAULT_COALESCE_MS,
  DEFAULT_SIGNALS_URL,
  DEFAULT_WAKE_KINDS,
  defaultConfigIni,
  loadConfig,
  readRconEndpoint,
} from "./config.ts";
import { CONFIG_MESSAGES } from "./messages.ts";

const dir = () => mkdtempSync(path.join(os.tmpdir(), "factorio-config-"));
const write = (d: string, name: string, text: string) => {
  const p = path.join(d, name);
  writeFileSync(p, text);
  return p;
};

// What a real Factorio config.ini looks like around the RCON keys.
const INI = (socket: string, password: string) => `; version=11
[path]
read-data=__PATH__system-read-data__
write-data=__PATH__system-write-data__

[other]
; Socket to host RCON on when lauching MP server from the menu.
${socket}
; Password for RCON when launching MP server from the menu.
${password}
check-updates=true
`;

describe("reading Factorio's config.ini", () => {
  it("reads host, port and password under [other]", () => {
    const p = write(
      dir(),
      "config.ini",
      INI("local-rcon-socket=127.0.0.1:27015", "local-rcon-password=s3cret"),
    );
    expect(readRconEndpoint(p)).toEqual({ host: "127.0.0.1", port: 27015, password: "s3cret" });
  });

  it("reaches a wildcard or port-only socket through loopback", () => {
    const a = write(dir(), "config.ini", INI("local-rcon-socket=0.0.0.0:25575", "local-rcon-password=x"));
    expect(readRconEndpoint(a).host).toBe("127.0.0.1");
    const b = write(dir(), "config.ini", INI("local-rcon-socket=25575", "local-rcon-password=x"));
    expect(readRconEndpoint(b)).toMatchObject({ host: "127.0.0.1", port: 25575 });
    const c = write(dir(), "config.ini", INI("local-rcon-socket=[::1]:25575", "local-rcon-password=x"));
    expect(readRconEndpoint(c)).toMatchObject({ host: "::1", port: 25575 });
  });

  it("names the commented-out or missing key and says RCON needs a hosted game", () => {
    const commented = write(dir(), "config.ini", INI("; local-rcon-socket=", "local-rcon-password=x"));
    expect(() => readRconEndpoint(commented)).toThrow(
      CONFIG_MESSAGES.configIniMissingKey("local-rcon-socket", commented),
    );
    const empty = write(dir(), "config.ini", INI("local-rcon-socket=127.0.0.1:1", "local-rcon-password="));
    expect(() => readRconEndpoint(empty)).toThrow(
      CONFIG_MESSAGES.configIniMissingKey("local-rcon-password", empty),
    );
    expect(CONFIG_MESSAGES.configIniMissingKey("k", "p")).toContain(
      "RCON only listens while the game is hosted",
    );
  });

  it("says where it looked when config.ini is absent", () => {
    const p = path.join(dir(), "nope.ini");
    expect(() => readRconEndpoint(p)).toThrow(CONFIG_MESSAGES.configIniMissingFile(p));
  });

  it("refuses a socket that is not HOST:PORT", () => {
    const p = write(dir(), "config.ini", INI("local-rcon-socket=localhost:99999", "local-rcon-password=x"));
    expect(() => readRconEndpoint(p)).toThrow(CONFIG_MESSAGES.configIniBadSocket("localhost:99999", p));
  });

  it("quotes at most 200 characters of a huge socket value", () => {
    const big = `h${"o".repeat(1 << 20)}:99999`;
    const p = write(dir(), "config.ini", INI(`local-rcon-socket=${big}`, "local-rcon-password=x"));
    expect(() => readRconEndpoint(p)).toThrow(
      `local-rcon-socket=${big.slice(0, 200)}…(${big.length} characters) in ${p} is not HOST:PORT or PORT`,
    );
  });

  it("never writes config.ini", () => {
    const p = write(dir(), "config.ini", INI("local-rcon-socket=127.0.0.1:27015", "local-rcon-password=s"));
    const before = { text: readFileSync(p, "utf8"), mtime: statSync(p).mtimeMs };
    readRconEndpoint(p);
    readRconEndpoint(p);
    expect({ text: readFileSync(p, "utf8"), mtime: statSync(p).mtimeMs }).toEqual(before);
  });
});

describe("config.toml", () => {
  it("takes the spec's defaults when a key is absent", () => {
    const d = dir();
    const cfg = loadConfig(write(d, "config.toml", ""));
    expect(cfg.signalsUrl).toBe(DEFAULT_SIGNALS_URL);
    expect([...cfg.wakeKinds]).toEqual([...DEFAULT_WAKE_KINDS]);
    expect(cfg.coalesceMs).toBe(DEFAULT_COALESCE_MS);
    expect(cfg.outcomeLog).toBe(path.join(d, "outcomes.jsonl"));
    expect(cfg.configIni).toBe(defaultConfigIni());
    expect(cfg.timeScale).toBe(1);
  });

  it("reads config_ini, wake kinds and paths relative to the file", () => {
    const d = dir();
    const cfg = loadConfig(
      write(
        d,
        "config.toml",
        `config_ini = "factorio/config.ini"\noutcome_log = "/tmp/o.jsonl"\nsignals_url = ""\n[wake]\nkinds = ["chat", "job_done"]\ncoalesce_ms = 10\n`,
      ),
    );
    expect(cfg.configIni).toBe(path.join(d, "factorio/config.ini"));
    expect(cfg.outcomeLog).toBe("/tmp/o.jsonl");
    expect(cfg.signalsUrl).toBeNull();
    expect([...cfg.wakeKinds]).toEqual(["chat", "job_done"]);
    expect(cfg.coalesceMs).toBe(10);
  });

  it("names the field at fault", () => {
    const d = dir();
    const p = write(d, "config.toml", `[wake]\nkinds = ["chat", "tea_time"]\n`);
    expect(() => loadConfig(p)).toThrow(/config\.toml at .* is invalid: wake\.kinds\.1/);
    const q = write(d, "bad.toml", "config_ini = [");
    expect(() => loadConfig(q)).toThrow(/is invalid/);
    expect(() => loadConfig(path.join(d, "none.toml"))).toThrow(
      CONFIG_MESSAGES.configTomlMissing(path.join(d, "none.toml")),
    );
  });

  it("FACTORIO_CONFIG_TOML overrides the config path; the shipped config.toml loads", () => {
    expect(configTomlPath({ FACTORIO_CONFIG_TOML: "/x/y.toml" })).toBe("/x/y.toml");
    const shipped = configTomlPath({});
    expect(shipped.endsWith(path.join("Mods", "factorio", "config.toml"))).toBe(true);
    expect([...loadConfig(shipped).wakeKinds]).toEqual([...DEFAULT_WAKE_KINDS]);
  });
});
