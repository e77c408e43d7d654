// The default face for each emotion id of the shipped vocabulary, as VRM expression weights.
// The lead copies these into the vocabulary file (`expression` of each emotion entry); the player
// applies the names a model has and ignores the rest, so one table serves every model.

/** Emotion ids of the shipped vocabulary. */
export const EMOTION_IDS = [
  "neutral",
  "happy",
  "sad",
  "angry",
  "surprised",
  "relaxed",
  "shy",
  "thinking",
] as const;
export type EmotionId = (typeof EMOTION_IDS)[number];

/** VRM expression name -> weight (0..1). */
export type ExpressionWeights = Readonly<Record<string, number>>;

/**
 * Default expression weights per emotion. `shy` and `thinking` have no VRM preset: they use custom
 * expressions of the same name (the default character has them) plus presets any model has.
 */
export const DEFAULT_EXPRESSIONS: Readonly<Record<EmotionId, ExpressionWeights>> = {
  neutral: {},
  happy: { happy: 1 },
  sad: { sad: 1 },
  angry: { angry: 1 },
  surprised: { surprised: 1 },
  relaxed: { relaxed: 1 },
  shy: { happy: 0.35, shy: 1, blush: 1 },
  thinking: { thinking: 1, relaxed: 0.2 },
};
