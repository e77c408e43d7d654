import { describe, expect, it } from "vitest";
import { SILENT_MARK } from "../addressing/addressing.ts";
import {
  type SignalEvent,
  SignalEventSchema,
  signalLabel,
  signalTurnContext,
  signalTurnMessage,
} from "./signal-turn.ts";

const DOORBELL: SignalEvent = {
  id: "sig-1",
  source: "factorio",
  event_type: "game.wake",
  delivery: "urgent",
  note: "yui, come here",
  count: 1,
  received_at: "2026-11-30T12:00:00.000Z",
  body: { pending_from_seq: 812, pending_to_seq: 815, reset: false },
};

describe("signal turns", () => {
  it("tell the model which mod sent what, and that the user did not write", () => {
    expect(signalTurnContext(DOORBELL)).toEqual([
      "signal: factorio game.wake (urgent)",
      `The user did not write this turn: a mod sent the signal in the message. Speak only if it is worth the user's attention; otherwise reply ${SILENT_MARK}.`,
    ]);
    expect(signalTurnContext({ ...DOORBELL, delivery: "normal", count: 3 })[0]).toBe(
      "signal: factorio game.wake (normal, 3 posts merged)",
    );
  });

  it("hand the backend the whole signal as JSON, without the host's claim id", () => {
    const { id: _id, ...rest } = DOORBELL;
    expect(JSON.parse(signalTurnMessage(DOORBELL))).toEqual(rest);
  });

  it("read in the transcript as the source and the note (or the type when there is none)", () => {
    expect(signalLabel(DOORBELL)).toBe("factorio · yui, come here");
    const { note: _n, ...noNote } = DOORBELL;
    expect(signalLabel(noNote)).toBe("factorio · game.wake");
  });

  it("refuse a payload that is not a signal event", () => {
    expect(SignalEventSchema.safeParse({ ...DOORBELL, id: "" }).success).toBe(false);
    expect(SignalEventSchema.safeParse({ ...DOORBELL, delivery: "soon" }).success).toBe(false);
    expect(SignalEventSchema.safeParse(DOORBELL).success).toBe(true);
  });
});
