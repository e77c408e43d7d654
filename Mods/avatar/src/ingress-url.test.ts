// AVATAR_INGRESS_URL: the check accepts exactly what its message says (MESSAGES.badUrl).
import { describe, expect, it } from "vitest";
import { ingressUrlFrom } from "./ingress-client.ts";
import { DEFAULT_INGRESS_URL, MESSAGES } from "./messages.ts";

const from = (value: string | undefined) => ingressUrlFrom({ AVATAR_INGRESS_URL: value });

describe("AVATAR_INGRESS_URL", () => {
  it.each([
    ["http://127.0.0.1:8770", "http://127.0.0.1:8770"],
    ["http://127.0.0.1:8770/", "http://127.0.0.1:8770"],
    ["http://localhost:8770", "http://localhost:8770"],
    ["HTTP://LocalHost:8870/", "http://localhost:8870"],
    ["http://127.0.0.1", "http://127.0.0.1"],
    ["http://127.0.0.1:8770/yui/", "http://127.0.0.1:8770/yui"],
    ["  http://localhost:8770  ", "http://localhost:8770"],
  ])("accepts %j as %j", (value, url) => {
    expect(from(value)).toBe(url);
  });

  it("is the default when unset or blank", () => {
    expect(from(undefined)).toBe(DEFAULT_INGRESS_URL);
    expect(from("  ")).toBe(DEFAULT_INGRESS_URL);
  });

  it.each([
    "https://127.0.0.1:8770", // the ingress speaks plain http
    "ftp://127.0.0.1:8770",
    "http://[::1]:8770", // the ingress listens on 127.0.0.1, not ::1
    "http://192.168.1.20:8770",
    "http://localhost.evil.example:8770",
    "http://localhost@evil.example:8770",
    "http://user:pw@127.0.0.1:8770",
    "http://127.0.0.1:0",
    "http://127.0.0.1:65536",
    "http://127.0.0.1:8770/?x=1",
    "http://127.0.0.1:8770/?",
    "http://127.0.0.1:8770#top",
    "127.0.0.1:8770",
    "localhost",
    "not a url",
  ])("refuses %j with the message saying what it accepts", (value) => {
    expect(() => from(value)).toThrow(MESSAGES.badUrl(value.trim()));
  });

  it("names what it accepts, and quotes at most 200 characters of a bad value", () => {
    expect(MESSAGES.badUrl("x")).toBe(
      "AVATAR_INGRESS_URL must be an http:// URL to 127.0.0.1 or localhost (where the app's ingress listens), " +
        "with an optional port and path and no user, query or fragment, such as http://127.0.0.1:8770; got 'x'",
    );
    const big = `http://example.com/${"p".repeat(1 << 20)}`;
    let message = "";
    try {
      from(big);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toBe(MESSAGES.badUrl(big));
    expect(message.length).toBeLessThan(500);
    expect(message).toContain(`got '${big.slice(0, 200)}…(${big.length} characters)'`);
  });

  it("takes a path, and the ingress errors quote at most 200 characters of the address", () => {
    const long = `http://127.0.0.1:8770/${"p".repeat(1 << 20)}`;
    expect(from(long)).toBe(long);
    for (const m of [
      MESSAGES.ingressDown(long),
      MESSAGES.ingressSlow(long, 20_000),
      MESSAGES.ingressGarbled(long),
    ]) {
      expect(m.length).toBeLessThan(600);
      expect(m).toContain(`${long.slice(0, 200)}…(${long.length} characters)`);
    }
  });
});
