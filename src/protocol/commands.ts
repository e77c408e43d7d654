/**
 * The commands a window invokes over the bridge (docs/app.md#commands): each name with the schema of its
 * arguments, which the host parses before running it, and the schema of its answer, which a window may parse.
 */
import { z } from "zod";
import { BODY_ACTION_RESULTS, BodyActionSchema, ScreenShotSchema } from "./body.ts";
import { HistoryEntrySchema } from "./history.ts";
import { HISTORY_MAX } from "./limits.ts";
import { PresetIdSchema, PresetSchema } from "./preset.ts";
import {
  DELTAS,
  isReservedReason,
  RatingAnswerSchema,
  RELATION_MAX,
  RELATION_MIN,
  USER_TARGET,
  WHY_MAX,
} from "./relations.ts";
import { vocabularySchema } from "./vocabulary.ts";

/** The host's command that decides one rate_relation change where the value is stored. */
export const RELATION_RATE_COMMAND = "relation_rate";

const PresetArgs = z.object({ presetId: PresetIdSchema });
const NoArgs = z.unknown();
const Ok = z.null();
const Claim = z.boolean();
/** A claim's id: an addressed turn's or a signal's. */
const ClaimId = z.string().min(1).max(200);
/** What the browser tool's host side answers: the result text, or text with screenshots. */
const BrowserAnswer = z.union([z.string(), z.object({ text: z.string(), images: z.array(z.string()) })]);
/** A vocabulary sent to the host: unchecked here, the host checks it with its file/field/problem messages. */
const GivenVocabulary = z.unknown();

/** The arguments of `relation_rate`: one rate_relation change the window has checked already. */
export const RelationRateArgsSchema = z.object({
  presetId: PresetIdSchema,
  target: z.union([z.literal(USER_TARGET), PresetIdSchema]),
  delta: z.union(DELTAS.map((d) => z.literal(d))),
  why: z
    .string()
    .refine((w) => [...w].length <= WHY_MAX, `at most ${WHY_MAX} characters`)
    .refine((w) => !isReservedReason(w), "reserved reason"),
  turn: z.string().min(1).max(200).optional(),
});

/** Every command: its arguments and its answer. */
export const COMMANDS = {
  store_set: { args: z.object({ key: z.string().min(1), value: z.unknown() }), answer: Ok },
  /** Answers whether something was stored. */
  store_delete: { args: z.object({ key: z.string().min(1) }), answer: z.boolean() },
  /** An empty key deletes it. */
  api_key_set: { args: z.object({ presetId: PresetIdSchema, key: z.string().max(4096) }), answer: Ok },
  /** Whether a key is in force, never the key. */
  api_key_status: { args: PresetArgs, answer: z.object({ stored: z.boolean(), inForce: z.boolean() }) },
  backend_test: {
    args: PresetArgs,
    answer: z.object({ ok: z.boolean(), verdict: z.string(), models: z.array(z.string()) }),
  },
  vocabulary_get: {
    args: NoArgs,
    answer: z.object({
      vocabulary: vocabularySchema,
      file: z.string(),
      shipped: z.boolean().optional(),
      error: z.string().optional(),
    }),
  },
  /** Answers the parsed vocabulary. */
  vocabulary_set: { args: z.object({ vocabulary: GivenVocabulary }), answer: vocabularySchema },
  [RELATION_RATE_COMMAND]: { args: RelationRateArgsSchema, answer: RatingAnswerSchema },
  relation_set_by_user: {
    args: z.object({
      presetId: PresetIdSchema,
      target: z.string().min(1),
      value: z.int().min(RELATION_MIN).max(RELATION_MAX),
    }),
    answer: Ok,
  },
  /** Adds the preset or replaces the one with its id; answers the stored preset. */
  preset_save: { args: z.object({ preset: PresetSchema }), answer: PresetSchema },
  preset_remove: { args: PresetArgs, answer: Ok },
  preset_activate: { args: PresetArgs, answer: Ok },
  pet_open: { args: PresetArgs, answer: Ok },
  pet_close: { args: PresetArgs, answer: Ok },
  /** A finished turn's lines, appended in one transaction (the newest HISTORY_MAX kept). */
  history_append: {
    args: z.object({
      presetId: PresetIdSchema,
      entries: z.array(HistoryEntrySchema).min(1).max(HISTORY_MAX),
    }),
    answer: Ok,
  },
  /** True for the first window to claim that addressed turn. */
  addressed_claim: { args: z.object({ presetId: PresetIdSchema, turnId: ClaimId }), answer: Claim },
  /** True for the first window to claim that signal's turn (the `id` of the `yui://signal` payload). */
  signal_claim: { args: z.object({ id: ClaimId }), answer: Claim },
  /** The voice engine's key, write-only (docs/voice.md#settings); an empty key deletes it. */
  voice_key_set: { args: z.object({ presetId: PresetIdSchema, key: z.string() }), answer: Ok },
  voice_key_status: { args: PresetArgs, answer: z.object({ stored: z.boolean() }) },
  /** The transcription engine's key, write-only (docs/voice.md#listening); an empty key deletes it. */
  listen_key_set: { args: z.object({ key: z.string().max(4096) }), answer: Ok },
  listen_key_status: { args: NoArgs, answer: z.object({ stored: z.boolean() }) },
  /** docs/browser-tool.md: runs code in the space yui-<presetId>. */
  browser_run: {
    args: z.object({
      // Part of a JS string literal and a space name: no control or line-separator characters.
      presetId: z
        .string()
        .min(1)
        .max(200)
        .regex(/^[^\p{Cc}\u2028\u2029]+$/u, "must not contain control or line-separator characters"),
      code: z.string(),
    }),
    answer: BrowserAnswer,
  },
  browser_guide: { args: NoArgs, answer: BrowserAnswer },
  /**
   * docs/body.md "The avatar executor": main's desktop window holds the executor while this call runs; it
   * answers `detached` when the hold ends (another main took it, the desktop went away) and `unsupported` at
   * once where no desktop is known (the browser build, no shell). Cancelling it (or closing the window) lets go.
   */
  body_attach: { args: PresetArgs, answer: z.enum(["detached", "unsupported"]) },
  /** One gesture on the executor; `unsupported` while there is none. */
  body_action: { args: BodyActionSchema, answer: z.enum(BODY_ACTION_RESULTS) },
  /** look at: body or perch_targets; fails with `unsupported` while there is no executor. */
  body_read: { args: z.object({ at: z.enum(["body", "perch_targets"]) }), answer: z.unknown() },
  /** look at: screen; null for a monitor that does not exist. */
  body_screen: {
    args: z.object({ monitor: z.int().min(0).optional() }),
    answer: ScreenShotSchema.nullable(),
  },
  /** A click on her or a message from the user (wakes her, interrupts the bed's setup). */
  body_poke: { args: NoArgs, answer: Ok },
  /**
   * Main's page says she dozes (her moves of her own pause) or woke (they resume); ignored unless `presetId`'s
   * window holds the body now (docs/avatar.md "Dozing").
   */
  body_rest: { args: z.object({ presetId: z.string().min(1).max(200), dozing: z.boolean() }), answer: Ok },
} as const satisfies Record<string, { args: z.ZodType; answer: z.ZodType }>;

export type CommandName = keyof typeof COMMANDS;
/** What a window sends as a command's arguments. */
export type CommandArgs<C extends CommandName> = z.input<(typeof COMMANDS)[C]["args"]>;
/** A command's arguments as the host's handler gets them: parsed by its schema. */
export type ParsedCommandArgs<C extends CommandName> = z.output<(typeof COMMANDS)[C]["args"]>;
/** What a command answers. */
export type CommandAnswer<C extends CommandName> = z.output<(typeof COMMANDS)[C]["answer"]>;

/** Parses a command's arguments; throws `invalid arguments: <problems>` when they do not fit. */
export function parseCommandArgs<C extends CommandName>(name: C, args: unknown): ParsedCommandArgs<C> {
  const r = COMMANDS[name].args.safeParse(args);
  if (!r.success) throw new Error(`invalid arguments: ${r.error.issues.map((i) => i.message).join("; ")}`);
  return r.data as ParsedCommandArgs<C>;
}
