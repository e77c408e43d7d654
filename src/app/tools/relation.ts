/**
 * rate_relation (spec: client-tools.md, "rate_relation"): moves this character's relation toward the user
 * or another open character by one small step, with the reason. The `toward` enum is read from the open
 * presets when the schema is built (this factory's call); the Relations switch is read when a call runs.
 */
import { z } from "zod";
import type { BridgeInvoke } from "../../io/bridge/client.ts";
import type { ClientTool, ToolCallContext } from "../../io/chat/tools/client-tools.ts";
import { declaredParameters, keptTo, oneOf } from "../../io/chat/tools/schema.ts";
import { RELATION_RATE_COMMAND } from "../../protocol/commands.ts";
import { DELTAS } from "../../protocol/relations.ts";
import type { KeyValue, PresetRef } from "../presets/presets.ts";
import {
  type RatingAnswer,
  type RatingClock,
  type RatingRequest,
  rateRelation,
  relationsEnabled,
  systemClock,
  towardChoices,
} from "../relations/access.ts";
import { isReservedReason, WHY_MAX } from "../relations/relations.ts";

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
/** rate_relation's steps, and the host's bridge command that decides one change (src/protocol/). */
export { DELTAS, RELATION_RATE_COMMAND };

/** What rate_relation needs from its window. */
export interface RateRelationDeps {
  /** The presets open now (main's active preset and the pet windows); read once, when the schema is built. */
  openPresets: () => PresetRef[];
  /** The calling window's preset: left out of `toward`. */
  presetId: string;
  /** The Relations switch, read when a call runs (first, before the arguments). */
  enabled: () => boolean | Promise<boolean>;
  /**
   * Decides one change where the value is stored, atomically (`rateRelation` in src/app/relations/access.ts):
   * the switch again, the daily cap, the clamp, the log entry and the band.
   */
  rate: (req: RatingRequest) => RatingAnswer | Promise<RatingAnswer>;
}

/**
 * rate_relation over the store in this process (the host's store: `yui chat`, tests). The clock defaults to this
 * process's; tests pass their own.
 */
export function relationsFromStore(
  kv: KeyValue,
  clock: () => RatingClock = systemClock,
): Pick<RateRelationDeps, "enabled" | "rate"> {
  return {
    enabled: () => relationsEnabled(kv),
    rate: (req) => rateRelation(kv, req, clock()),
  };
}

/**
 * rate_relation in a window: the switch from the window's mirror of the store, each change decided by the host
 * (`relation_rate`, one SQLite transaction), so two windows rating one target at once never lose a write.
 */
export function relationsOverBridge(
  invoke: BridgeInvoke,
  kv: KeyValue,
): Pick<RateRelationDeps, "enabled" | "rate"> {
  return {
    enabled: () => relationsEnabled(kv),
    // The answer is checked against relation_rate's answer schema by the bridge client.
    rate: (req) => invoke(RELATION_RATE_COMMAND, req),
  };
}

const TURNS_KEPT = 64;

/**
 * rate_relation's arguments for these targets: the one source of its declared schema and its check. A why longer
 * than 80 characters is kept to its first 80.
 */
export function rateArgs(towardLabels: readonly string[]) {
  return z.strictObject({
    toward: oneOf(towardLabels).describe("user (the human) or another open character's name"),
    delta: z.literal(DELTAS).describe("the step: -2, -1, 1 or 2"),
    why: keptTo(WHY_MAX).describe(
      "the reason, at most 80 characters; shown to the user, so write it for them",
    ),
  });
}

/** Builds rate_relation for one window; call it whenever the schema is built (each turn, each push hello). */
export function createRateRelationTool(deps: RateRelationDeps): ClientTool {
  const choices = towardChoices(deps.openPresets(), deps.presetId);
  const byLabel = new Map(choices.map((c) => [c.label, c]));
  const args = rateArgs(choices.map((c) => c.label));
  const { shape } = args;
  // Per turn, the targets already rated (one accepted call per target per turn). A turn runs in one window, so
  // this rule lives here; the value, the cap and the clamp live where the value is stored.
  const rated = new Map<string, Set<string>>();
  // Calls run one at a time so a second call of a turn sees the first one accepted.
  let queue: Promise<unknown> = Promise.resolve();

  async function run(args: Record<string, unknown>, ctx: ToolCallContext): Promise<string> {
    const R = RATE_RELATION_RESULTS;
    if (!(await deps.enabled())) return R.relationsOff;
    const toward = shape.toward.safeParse(args.toward);
    const choice = toward.success ? byLabel.get(toward.data) : undefined;
    if (!choice) return R.unknownTarget;
    const step = shape.delta.safeParse(args.delta);
    if (!step.success) return R.invalidDelta;
    const delta = step.data;
    const reason = shape.why.safeParse(args.why);
    if (!reason.success) return R.invalidWhy;
    const why = reason.data;
    if (isReservedReason(why)) return R.reservedReason;
    const turnRated = rated.get(ctx.turnId) ?? new Set<string>();
    if (turnRated.has(choice.id)) return R.alreadyRated(choice.label);

    // The relations belong to the window this tool was built for (the one left out of toward).
    const answer = await deps.rate({
      presetId: deps.presetId,
      target: choice.id,
      delta,
      why,
      turn: ctx.turnId,
    });
    if (answer.off) return R.relationsOff;
    // Accepted (a call cut to nothing included): later calls for this target in this turn are ignored.
    turnRated.add(choice.id);
    rated.set(ctx.turnId, turnRated);
    if (rated.size > TURNS_KEPT) rated.delete(rated.keys().next().value!);
    return answer.clamped ? R.clamped(answer.band) : answer.band;
  }

  return {
    name: RATE_RELATION_NAME,
    description:
      "Moves this character's relation toward the user or another open character by one small step, with the reason. Answers the band after the change (hostile, cold, neutral, warm, close).",
    parameters: declaredParameters(args),
    switchId: RELATIONS_SWITCH_ID,
    run: (args, ctx) => {
      const next = queue.then(() => run(args, ctx));
      queue = next.catch(() => undefined);
      return next;
    },
  };
}
