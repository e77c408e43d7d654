/**
 * Listening in the Electron shell (docs/voice.md#listening): which permission requests get the microphone.
 * Pure, so it is tested without Electron; main.ts's grantMicrophone applies it to the session.
 */

/** What Electron's permission handlers are told about a request. */
export interface PermissionAsk {
  permission: string;
  /** The page asking (`details.requestingUrl`, else the frame's URL). */
  url: string;
  /** `details.mediaTypes` of a `media` request. */
  mediaTypes?: readonly string[];
}

/** True only for the microphone (no camera), asked by a page of the host's origin. */
export function microphoneAllowed(ask: PermissionAsk, hostOrigin: string | undefined): boolean {
  if (!hostOrigin || ask.permission !== "media") return false;
  let origin: string;
  try {
    origin = new URL(ask.url).origin;
  } catch {
    return false;
  }
  const types = ask.mediaTypes ?? [];
  return origin === hostOrigin && types.includes("audio") && !types.includes("video");
}

/**
 * Every permission request: `media` as microphoneAllowed says; anything else (what Electron granted every
 * page before) only to the host's own pages.
 */
export function permissionAllowed(ask: PermissionAsk, hostOrigin: string | undefined): boolean {
  if (ask.permission === "media") return microphoneAllowed(ask, hostOrigin);
  try {
    return Boolean(hostOrigin) && new URL(ask.url).origin === hostOrigin;
  } catch {
    return false;
  }
}
