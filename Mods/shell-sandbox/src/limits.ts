// Every limit of the mod, in one place, so the code, the tests and docs/mods/shell-sandbox.md agree.

/** Default time a `run` command may take, in seconds. */
export const RUN_TIMEOUT_DEFAULT_S = 120;
/** Longest time an agent may ask for with `run`'s `timeout`, in seconds. */
export const RUN_TIMEOUT_MAX_S = 600;
/** Exit code reported when `run` killed the command at its timeout (the value coreutils `timeout` uses). */
export const RUN_TIMEOUT_EXIT_CODE = 124;
/** Bytes of stdout, and separately of stderr, that `run` returns; the rest is read and dropped. */
export const RUN_OUTPUT_CAP_BYTES = 30_000;
/**
 * Longest single argument the Linux kernel passes to a program (MAX_ARG_STRLEN: 32 pages of 4 KiB),
 * counting the final NUL. `run` hands the command to the shell as one argument, so this is the
 * longest command it can run; longer ones are refused with a pointer to a script file.
 */
export const COMMAND_MAX_BYTES = 131_072;
/**
 * After the shell exits and everything it started is killed, how long `run` still waits for the
 * output pipes to close (a process that escaped the cleanup may hold them) before it answers anyway.
 */
export const RUN_PIPE_GRACE_MS = 500;

/** Largest file that read_file and edit_file load (and that write_file writes). */
export const TEXT_FILE_MAX_BYTES = 10 * 1024 * 1024;
/** Lines read_file returns when the agent gives no `limit`; also the largest `limit` accepted. */
export const READ_LIMIT_DEFAULT_LINES = 2000;
/** Bytes of text one read_file window may carry; a window stops at the last whole line that fits. */
export const READ_WINDOW_MAX_BYTES = 100_000;

/** Largest image read_image returns (before base64). */
export const IMAGE_MAX_BYTES = 10 * 1024 * 1024;
