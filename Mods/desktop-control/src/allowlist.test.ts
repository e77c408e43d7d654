import { describe, expect, it } from "vitest";
import { authorize, parseAllowlist, sameApp } from "./allowlist.ts";
import { ALLOWLIST_ENV, msg, ToolError } from "./messages.ts";

describe("parseAllowlist", () => {
  it.each([
    [undefined, []],
    ["", []],
    [" , ,", []],
    ["XTerm", ["XTerm"]],
    [" XTerm , XClock ,", ["XTerm", "XClock"]],
    ["Google Chrome,Visual Studio Code", ["Google Chrome", "Visual Studio Code"]],
    ["ok,bad\nname", ["ok"]],
  ])("parses %j as %j", (raw, want) => {
    expect(parseAllowlist(raw)).toEqual(want);
  });
});

describe("authorize", () => {
  const refuse = (list: string[], name: string): string => {
    try {
      authorize(list, name);
    } catch (e) {
      expect(e).toBeInstanceOf(ToolError);
      return (e as Error).message;
    }
    throw new Error("expected a refusal");
  };

  it("refuses everything when the list is empty, naming the variable", () => {
    for (const name of ["XTerm", "Finder", "anything"]) {
      const m = refuse([], name);
      expect(m).toBe(msg.allowlistEmpty());
      expect(m).toContain(ALLOWLIST_ENV);
    }
  });

  it("refuses an unlisted app, naming the variable", () => {
    expect(refuse(["XTerm"], "XClock")).toBe(msg.notAllowed("XClock"));
    expect(msg.notAllowed("XClock")).toContain(ALLOWLIST_ENV);
  });

  it("matches whole names case-insensitively and answers the listed spelling", () => {
    expect(authorize(["XTerm", "Google Chrome"], "xterm")).toBe("XTerm");
    expect(authorize(["XTerm", "Google Chrome"], "google chrome")).toBe("Google Chrome");
    expect(authorize(["Café"], "CAFE\u0301")).toBe("Café");
  });

  it.each(["XTer", "XTerm2", "X*", "/usr/bin/xterm", "xterm; rm -rf /", "Google"])(
    "never matches a prefix, pattern or path: %s",
    (name) => {
      expect(refuse(["XTerm", "Google Chrome"], name)).toBe(msg.notAllowed(name));
    },
  );

  it.each(["", "   ", "a\nb", "x".repeat(257)])("refuses a malformed name %j before the list", (name) => {
    expect(refuse(["XTerm"], name)).toBe(msg.badName());
  });

  it("compares app names by the same rules", () => {
    expect(sameApp("XTerm", "xterm")).toBe(true);
    expect(sameApp("XTerm", "XTerm ")).toBe(false);
  });
});
