// Picks the desktop backend for this OS.
import { LinuxPlatform } from "./linux.ts";
import { MacPlatform } from "./macos.ts";
import type { Platform } from "./types.ts";

/** The backend for `os` (process.platform); throws on a desktop this mod does not drive. */
export function platformFor(
  os: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): Platform {
  if (os === "darwin") return new MacPlatform({ env });
  if (os === "linux") return new LinuxPlatform({ env });
  throw new Error(`desktop-control runs on macOS and Linux (X11), not on ${os}`);
}
