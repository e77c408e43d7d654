import { describe, expect, it } from "vitest";
import {
  applyRating,
  BANDS,
  band,
  DAILY_CAP,
  emptyRelations,
  isReservedReason,
  LOG_MAX,
  localDay,
  RELATION_MAX,
  RELATION_MIN,
  type RelationsState,
  RelationsStateSchema,
  relationLine,
  setByUser,
  USER_REASON,
} from "./relations.ts";

// The spec's numbers and words, written once.
const SPEC = {
  min: -20,
  max: 20,
  start: 0,
  dailyCap: 4,
  bands: ["hostile", "cold", "neutral", "warm", "close"],
  userReason: "set by the user",
  // value → band, at every boundary of "hostile ≤ -12, cold ≤ -4, neutral, warm ≥ 4, close ≥ 12"
  bandAt: [
    [-20, "hostile"],
    [-12, "hostile"],
    [-11, "cold"],
    [-4, "cold"],
    [-3, "neutral"],
    [0, "neutral"],
    [3, "neutral"],
    [4, "warm"],
    [11, "warm"],
    [12, "close"],
    [20, "close"],
  ],
} as const;

const TZ = "Asia/Tokyo"; // UTC+9, no DST
const at = (iso: string) => Date.parse(iso);
const rate = (s: RelationsState, delta: number, now: number, target = "user", timeZone = TZ) =>
  applyRating(s, { target, delta, why: "because", now, timeZone });
const withValue = (v: number, target = "user"): RelationsState => ({
  ...emptyRelations(),
  values: { [target]: v },
});

describe("relations", () => {
  it("uses the spec's range, start, cap, band words and reserved reason", () => {
    expect([RELATION_MIN, RELATION_MAX, DAILY_CAP, USER_REASON]).toEqual([
      SPEC.min,
      SPEC.max,
      SPEC.dailyCap,
      SPEC.userReason,
    ]);
    expect(BANDS).toEqual(SPEC.bands);
    const first = rate(emptyRelations(), 1, at("2026-11-30T03:00:00Z"));
    expect(first.state.log[0]!.from).toBe(SPEC.start);
  });

  it("puts values in bands by plain comparison", () => {
    for (const [value, word] of SPEC.bandAt) expect(band(value), `value ${value}`).toBe(word);
  });

  it("answers the band after the change and logs it with the reason", () => {
    const out = applyRating(withValue(3), {
      target: "user",
      delta: 1,
      why: "kind words",
      now: 1000,
      timeZone: TZ,
      turn: "t1",
    });
    expect(out).toMatchObject({ band: "warm", clamped: false, applied: 1 });
    expect(out.state.values.user).toBe(4);
    expect(out.state.log).toEqual([
      { at: 1000, target: "user", from: 3, to: 4, why: "kind words", who: "backend", turn: "t1" },
    ]);
    expect(RelationsStateSchema.parse(out.state)).toEqual(out.state);
  });

  it("caps change at 4 points per target per day, summed as absolute deltas", () => {
    const t = at("2026-11-30T03:00:00Z");
    let s = emptyRelations();
    s = rate(s, 2, t).state;
    s = rate(s, -1, t).state; // spent 3, value 1
    const cut = rate(s, -2, t); // 1 point left
    expect(cut).toMatchObject({ clamped: true, applied: -1, band: "neutral" });
    expect(cut.state.values.user).toBe(0);
    expect(cut.state.spent.user!.points).toBe(4);
    const none = rate(cut.state, 1, t);
    expect(none).toMatchObject({ clamped: true, applied: 0, band: "neutral" });
  });

  it("keeps a separate daily cap per target", () => {
    const t = at("2026-11-30T03:00:00Z");
    let s = rate(rate(emptyRelations(), 2, t).state, 2, t).state;
    s = rate(s, 2, t, "aoi").state;
    expect(s.values).toEqual({ user: 4, aoi: 2 });
  });

  it("opens a new daily cap at local midnight, not at UTC midnight", () => {
    // 23:30 and 23:59 in Tokyo are 14:30 and 14:59 UTC; 00:00 in Tokyo is 15:00 UTC.
    const before = at("2026-11-30T14:30:00Z");
    const lastMinute = at("2026-11-30T14:59:00Z");
    const midnight = at("2026-11-30T15:00:00Z");
    let s = rate(rate(emptyRelations(), 2, before).state, 2, before).state;
    expect(rate(s, 1, lastMinute)).toMatchObject({ clamped: true, applied: 0 });
    const next = rate(s, 2, midnight);
    expect(next).toMatchObject({ clamped: false, applied: 2 });
    expect(next.state.spent.user).toEqual({ day: "2026-12-01", points: 2 });
    // Same instants in New York: all on Nov 30 local, so the cap still holds at Tokyo's midnight.
    s = rate(
      rate(emptyRelations(), 2, before, "user", "America/New_York").state,
      2,
      before,
      "user",
      "America/New_York",
    ).state;
    expect(rate(s, 1, midnight, "user", "America/New_York")).toMatchObject({ clamped: true, applied: 0 });
  });

  it("names the local calendar day in the given time zone", () => {
    const t = at("2026-03-01T01:00:00Z");
    expect(localDay(t, "UTC")).toBe("2026-03-01");
    expect(localDay(t, "America/Los_Angeles")).toBe("2026-02-28");
    expect(localDay(t, "Asia/Tokyo")).toBe("2026-03-01");
    expect(localDay(t, "Not/A_Zone")).toBe(localDay(t, Intl.DateTimeFormat().resolvedOptions().timeZone));
  });

  it("holds the value inside -20..20 and answers clamped", () => {
    const t = at("2026-11-30T03:00:00Z");
    const top = rate(withValue(19), 2, t);
    expect(top).toMatchObject({ clamped: true, applied: 1, band: "close" });
    expect(top.state.values.user).toBe(20);
    const bottom = rate(withValue(-20), -1, t);
    expect(bottom).toMatchObject({ clamped: true, applied: 0, band: "hostile" });
  });

  it("clamps at the range and the cap together to the smaller room", () => {
    const t = at("2026-11-30T03:00:00Z");
    // 3 points spent today and the value at 19: cap room 1, range room 1 → one point.
    let s: RelationsState = { ...withValue(18), spent: { user: { day: "2026-11-30", points: 2 } } };
    s = rate(s, 1, t).state; // 19, spent 3
    const both = rate(s, 2, t);
    expect(both).toMatchObject({ clamped: true, applied: 1, band: "close" });
    expect(both.state.values.user).toBe(20);
    expect(both.state.spent.user!.points).toBe(4);
    // Range room 0 with cap room left: nothing applied, spend unchanged.
    const after = rate({ ...withValue(20), spent: {} }, 2, t);
    expect(after).toMatchObject({ clamped: true, applied: 0 });
    expect(after.state.spent).toEqual({});
  });

  it("does not log a call cut to nothing", () => {
    const t = at("2026-11-30T03:00:00Z");
    const s = withValue(20);
    const out = rate(s, 1, t);
    expect(out.state).toBe(s);
    expect(out.state.log).toEqual([]);
  });

  it("logs the user's slider as one jump with the reserved reason, spending no cap, held only by the range", () => {
    const t = at("2026-11-30T03:00:00Z");
    let s = rate(rate(emptyRelations(), 2, t).state, 2, t).state; // cap used up
    s = setByUser(s, "user", -15, t);
    expect(s.values.user).toBe(-15);
    expect(s.log.at(-1)).toEqual({
      at: t,
      target: "user",
      from: 4,
      to: -15,
      why: SPEC.userReason,
      who: "user",
    });
    expect(s.spent.user!.points).toBe(4);
    s = setByUser(s, "user", 99, t);
    expect(s.values.user).toBe(20);
    expect(setByUser(s, "user", 20, t)).toBe(s);
  });

  it("treats the user's reason as reserved, trimmed and in any case", () => {
    expect(isReservedReason(SPEC.userReason)).toBe(true);
    expect(isReservedReason("  Set By The User ")).toBe(true);
    expect(isReservedReason("set by the user, really")).toBe(false);
  });

  it("keeps the newest log entries when the log is full", () => {
    let s = emptyRelations();
    for (let i = 0; i < LOG_MAX + 5; i++) s = setByUser(s, "user", i % 2 === 0 ? 5 : -5, i);
    expect(s.log).toHaveLength(LOG_MAX);
    expect(s.log.at(-1)!.at).toBe(LOG_MAX + 4);
    expect(RelationsStateSchema.safeParse(s).success).toBe(true);
  });

  it("renders the relation: line with the band per listed target, and none while relations are off", () => {
    const s: RelationsState = { ...emptyRelations(), values: { user: 6, aoi: -12 } };
    const targets = [
      { id: "user", label: "user" },
      { id: "aoi", label: "Aoi" },
      { id: "ren", label: "user (character)" },
    ];
    expect(relationLine(s, targets, true)).toBe("relation: user warm, Aoi hostile, user (character) neutral");
    expect(relationLine(s, targets, false)).toBeNull();
  });
});
