/** The page's side of the listening route: an utterance's samples posted as a WAV, its transcript back. */
import { LISTEN_PATH, type Transcript, TranscriptSchema } from "../../protocol/listen.ts";
import { encodeWav } from "./wav.ts";

/** Transcribes 16 kHz samples through the host; rejects with the host's message. */
export async function transcribeOnHost(
  audio: Float32Array,
  signal?: AbortSignal,
  base = globalThis.location?.origin ?? "",
): Promise<Transcript> {
  const res = await fetch(`${base}${LISTEN_PATH}`, {
    method: "POST",
    headers: { "content-type": "audio/wav" },
    body: encodeWav(audio),
    signal,
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`HTTP ${res.status}`);
  }
  if (!res.ok)
    throw new Error((json as { error?: { message?: string } }).error?.message ?? `HTTP ${res.status}`);
  return TranscriptSchema.parse(json);
}
