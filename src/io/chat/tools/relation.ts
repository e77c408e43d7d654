/**
 * rate_relation (spec: client-tools.md, "rate_relation"): moves this character's relation toward the user
 * or another open character by one small step, with the reason. The `toward` enum is read from the open
 * presets when the schema is built (this factory's call); the Relations switch is read when a call runs.
 */
import type { KeyValue, PresetRef } from "../../../app/presets/presets.ts";
import {
  loadRelations,
  modifyRelations,
  relationsEnabled,
  saveRelations,
  towardChoices,
} from "../../../app/relations/access.ts";
import {
  applyRating,
  isReservedReason,
  type RatingOutcome,
  type RelationsState,
  WHY_MAX,
} from "../../../app/relations/relations.ts";
import type { ClientTool, ToolCallContext } from "./client-tools.ts";

/** Re-exported for callers that build the relation: line's targets beside the tool. */
export { towardChoices };

/** Every exact result string of rate_relation (the band words come from relations.ts). */
export const RATE_RELATION_RESULTS = {
  clamped: (band: string) => `clamped: ${band}`,
  alreadyRated: (toward: string) => `ignored: already rated ${toward} this turn`,
  unknownTarget: "error: unknown target",
  invalidDelta: "error: invalid field delta",
  invalidWhy: "error: invalid field why",
  reservedReason: "error: reserved reason",
  relationsOff: "error: relations are off",
} as const;

export const RATE_RELATION_NAME = "rate_relation";
/** The switch id rate_relation carries (listed on the `tool switches:` line). */
export const RELATIONS_SWITCH_ID = "relations";
export const DELTAS = [-2, -1, 1, 2] as const;

/** What rate_relation needs from its window. */
export interface RateRelationDeps {
  /** The presets open now (main's active preset and the pet windows); read once, when the schema is built. */
  openPresets: () => PresetRef[];
  /** The calling window's preset: left out of `toward`. */
  presetId: string;
  /** The Relations switch, read when a call runs. */
  enabled: () => boolean | Promise<boolean>;
  /** Reads a preset's relations (`yui.<presetId>.relations`). */
  load: (presetId: string) => RelationsState | Promise<RelationsState>;
  /** Writes them back. */
  save: (presetId: string, state: RelationsState) => void | Promise<void>;
  /**
   * When given, used instead of load + save: changes a preset's relations through `fn` in one atomic step
   * (`fn` handing back its argument writes nothing). The host's store provides it.
   */
  modify?: (
    presetId: string,
    fn: (state: RelationsState) => RelationsState,
  ) => RelationsState | Promise<RelationsState>;
  /** Clock (epoch ms) for the log and the daily cap. */
  now?: () => number;
  /** The user's IANA time zone, for the local calendar day. */
  timeZone?: () => string;
}

/** Wires rate_relation's storage and switch to a key-value store (the host's store, or the bridge's mirror). */
export function relationsFromStore(
  kv: KeyValue,
): Pick<RateRelationDeps, "enabled" | "load" | "save" | "modify"> {
  return {
    enabled: () => relationsEnabled(kv),
    load: (presetId) => loadRelations(kv, presetId),
    save: (presetId, state) => saveRelations(kv, presetId, state, "backend"),
    modify: (presetId, fn) => modifyRelations(kv, presetId, fn, "backend"),
  };
}

const TURNS_KEPT = 64;

/** Builds rate_relation for one window; call it whenever the schema is built (each turn, each push hello). */
export function createRateRelationTool(deps: RateRelationDeps): ClientTool {
  const choices = towardChoices(deps.openPresets(), deps.presetId);
  const byLabel = new Map(choices.map((c) => [c.label, c]));
  const now = deps.now ?? Date.now;
  const timeZone = deps.timeZone ?? (() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  // Per turn, the targets already rated (one accepted call per target per turn).
  const rated = new Map<string, Set<string>>();
  // Calls run one at a time so two calls of one turn never read the same state and lose a write.
  let queue: Promise<unknown> = Promise.resolve();

  async function run(args: Record<string, unknown>, ctx: ToolCallContext): Promise<string> {
    const R = RATE_RELATION_RESULTS;
    if (!(await deps.enabled())) return R.relationsOff;
    const choice = typeof args.toward === "string" ? byLabel.get(args.toward) : undefined;
    if (!choice) return R.unknownTarget;
    const { delta } = args;
    if (typeof delta !== "number" || !(DELTAS as readonly number[]).includes(delta)) return R.invalidDelta;
    if (typeof args.why !== "string") return R.invalidWhy;
    // The declared schema says at most 80; a longer reason is kept to its first 80 characters.
    const why = [...args.why].slice(0, WHY_MAX).join("");
    if (isReservedReason(why)) return R.reservedReason;
    const turnRated = rated.get(ctx.turnId) ?? new Set<string>();
    if (turnRated.has(choice.id)) return R.alreadyRated(choice.label);

    // The relations belong to the window this tool was built for (the one left out of toward).
    const owner = deps.presetId;
    const step = { target: choice.id, delta, why, now: now(), timeZone: timeZone(), turn: ctx.turnId };
    let outcome: RatingOutcome | undefined;
    if (deps.modify) {
      // applyRating hands back the very state it got when nothing applies, so nothing is written then.
      await deps.modify(owner, (state) => {
        outcome = applyRating(state, step);
        return outcome.state;
      });
    } else {
      outcome = applyRating(await deps.load(owner), step);
      if (outcome.applied !== 0) await deps.save(owner, outcome.state);
    }
    if (!outcome) throw new Error("the relations store did not run the change");
    // Accepted (a call cut to nothing included): later calls for this target in this turn are ignored.
    turnRated.add(choice.id);
    rated.set(ctx.turnId, turnRated);
    if (rated.size > TURNS_KEPT) rated.delete(rated.keys().next().value!);
    return outcome.clamped ? R.clamped(outcome.band) : outcome.band;
  }

  return {
    name: RATE_RELATION_NAME,
    description:
      "Moves this character's relation toward the user or another open character by one small step, with the reason. Answers the band after the change (hostile, cold, neutral, warm, close).",
    parameters: {
      type: "object",
      properties: {
        toward: {
          type: "string",
          enum: choices.map((c) => c.label),
          description: "user (the human) or another open character's name",
        },
        delta: { type: "integer", enum: [...DELTAS], description: "the step: -2, -1, 1 or 2" },
        why: {
          type: "string",
          maxLength: WHY_MAX,
          description: "the reason, at most 80 characters; shown to the user, so write it for them",
        },
      },
      required: ["toward", "delta", "why"],
      additionalProperties: false,
    },
    switchId: RELATIONS_SWITCH_ID,
    run: (args, ctx) => {
      const next = queue.then(() => run(args, ctx));
      queue = next.catch(() => undefined);
      return next;
    },
  };
}
