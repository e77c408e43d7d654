import type { Cue } from "../../../protocol/cue.ts";
import type { EngineEvent } from "../stream/types.ts";
import { GENERATE_EXPRESS } from "../tools/client-tools.ts";
import type { SegmentCue, SegmentFrame } from "./frames.ts";

/** A piece of a segment in play order: text, or a cue that plays between texts. */
export type SegmentPiece = { kind: "text"; text: string } | { kind: "cue"; cue: Cue };

/**
 * Splits a segment's text at its cues' positions (Unicode code points; clamped into the text; a cue without a
 * valid position plays at the end) so each cue plays where the speech reaches it.
 */
export function placeCues(text: string, cues: readonly SegmentCue[] = []): SegmentPiece[] {
  const points = Array.from(text);
  const placed = cues
    .map((c, i) => {
      const { at, ...rest } = c;
      const valid = typeof at === "number" && Number.isFinite(at);
      const pos = valid ? Math.min(points.length, Math.max(0, Math.floor(at as number))) : points.length;
      return { pos, i, cue: rest };
    })
    .sort((a, b) => a.pos - b.pos || a.i - b.i);
  const out: SegmentPiece[] = [];
  let from = 0;
  for (const p of placed) {
    if (p.pos > from) out.push({ kind: "text", text: points.slice(from, p.pos).join("") });
    from = Math.max(from, p.pos);
    out.push({ kind: "cue", cue: p.cue });
  }
  if (from < points.length) out.push({ kind: "text", text: points.slice(from).join("") });
  return out;
}

/**
 * The segment player: one segment frame as the engine events it plays, for a turn whose text so far is
 * `before` (text deltas, render marked; each cue as a generate_express cue at its offset in the turn's text).
 */
export function playSegment(frame: SegmentFrame, before: string): { events: EngineEvent[]; text: string } {
  let text = before;
  const events: EngineEvent[] = [];
  for (const piece of placeCues(frame.text, frame.cues)) {
    if (piece.kind === "text") {
      text += piece.text;
      events.push({
        type: "text",
        delta: piece.text,
        ...(frame.kind === "render" ? { render: true as const } : {}),
      });
    } else {
      events.push({
        type: "cue",
        call_id: `${frame.turn_id}:cue`,
        name: GENERATE_EXPRESS,
        arguments: piece.cue as Record<string, unknown>,
        offset: text.length,
      });
    }
  }
  return { events, text };
}
