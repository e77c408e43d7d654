import { describe, expect, it } from "vitest";
import { PROXY_ERRORS } from "../../host/server/proxy.ts";
import { CHAT_ERRORS, plainError } from "./errors.ts";

// The engine's error strings (src/io/chat/stream/http.ts, sse.ts) and what the chat shows for each.
const CASES: [string, string][] = [
  [
    `backend answered HTTP 502 Bad Gateway: ${JSON.stringify({ error: { message: PROXY_ERRORS.unreachable("http://127.0.0.1:11434/v1", "connection refused") } })}`,
    PROXY_ERRORS.unreachable("http://127.0.0.1:11434/v1", "connection refused"),
  ],
  ['backend answered HTTP 401 Unauthorized: {"error":{"message":"bad key"}}', CHAT_ERRORS.auth(401)],
  ["backend answered HTTP 403 Forbidden", CHAT_ERRORS.auth(403)],
  ["backend answered HTTP 404 Not Found: nope", CHAT_ERRORS.notFound],
  [
    'backend answered HTTP 500 Internal Server Error: {"error":{"message":"model crashed"}}',
    CHAT_ERRORS.http(500, "model crashed"),
  ],
  [
    "backend unreachable at http://127.0.0.1:8777/api/backend/yui/v1/chat/completions: fetch failed",
    CHAT_ERRORS.hostDown,
  ],
  ["backend stalled: no data for 120 s", CHAT_ERRORS.stalled],
  ["backend error: boom", CHAT_ERRORS.other("boom")],
];

describe("errors in plain words", () => {
  it.each(CASES)("%s", (engine, shown) => {
    expect(plainError(engine)).toBe(shown);
  });
});
