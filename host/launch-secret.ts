/**
 * The host's launch secret as local commands reach it (docs/app.md "Security model"): a running host writes its
 * secret to `host-<port>.secret` in the data directory, readable by the user alone (0600), and a local command
 * (`yui chat --host`, the tests) reads it there and sends it as the HOST_SECRET_HEADER of its requests.
 */
import { chmodSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The header a local command carries the secret in (a page carries it in its cookie instead). */
export const HOST_SECRET_HEADER = "x-yui-secret";

/** The file a host on `port` keeps its secret in, inside the data directory. */
export function secretFile(dataDir: string, port: number): string {
  return join(dataDir, `host-${port}.secret`);
}

/** Writes the secret for a host on `port`, the user's alone; whole-file replace, so a reader never sees half. */
export function writeHostSecret(dataDir: string, port: number, secret: string): string {
  const file = secretFile(dataDir, port);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${secret}\n`, { mode: 0o600 });
  // A leftover temp file of an earlier run keeps its mode through writeFileSync: set it again.
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
  return file;
}

/** Removes the secret file when it still holds `secret` (a newer host on the same port keeps its own). */
export function removeHostSecret(dataDir: string, port: number, secret: string): void {
  if (readHostSecret(dataDir, port) === secret) rmSync(secretFile(dataDir, port), { force: true });
}

/** The secret of the host on `port` with this data directory, or undefined when none runs there. */
export function readHostSecret(dataDir: string, port: number): string | undefined {
  try {
    const s = readFileSync(secretFile(dataDir, port), "utf8").trim();
    return s || undefined;
  } catch {
    return undefined;
  }
}

/** The headers a local command connects to the host at `hostUrl` with: the secret, when its file is there. */
export function hostSecretHeaders(dataDir: string, hostUrl: string): Record<string, string> {
  let port: number;
  try {
    const u = new URL(hostUrl);
    port = Number(u.port || (u.protocol === "https:" ? 443 : 80));
  } catch {
    return {};
  }
  const secret = readHostSecret(dataDir, port);
  return secret ? { [HOST_SECRET_HEADER]: secret } : {};
}
