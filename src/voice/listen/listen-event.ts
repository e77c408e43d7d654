/**
 * The event a page's listening dispatches (bubbling) on its indicator whenever its state changes, with
 * `{ presetId, state, timeline }` as `detail` (`timeline`: the live array of ListenEvent, kept by reference),
 * for whoever inspects the page (tests and bench:listen: tools/testing/listen-probe.ts); nothing in the app
 * listens to it. A file of its own so that a probe can name it without loading the listening.
 */
export const LISTEN_EVENT = "yui-listen";
