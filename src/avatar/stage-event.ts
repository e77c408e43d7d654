/**
 * The event createStage dispatches on its canvas (bubbling) with the stage as `detail`, for whoever inspects
 * the page (tests, diagnostics: tools/testing/stage-probe.ts); nothing in the app listens to it. A file of its
 * own so that a probe can name it without loading the stage.
 */
export const STAGE_EVENT = "yui-stage";
