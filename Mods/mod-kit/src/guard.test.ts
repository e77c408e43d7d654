import { describe, expect, it } from "vitest";
import { isLoopbackHost, isLoopbackOrigin } from "./guard.ts";

const LOOPBACK_HOSTS = [
  "127.0.0.1",
  "127.0.0.1:9000",
  "localhost",
  "LOCALHOST:8080",
  "LocalHost",
  "::1",
  "[::1]",
  "[::1]:9001",
];
const FOREIGN_HOSTS = [
  undefined,
  "",
  "evil.example",
  "evil.example:9000",
  "localhost.evil.example",
  "127.0.0.1.nip.io",
  "10.0.0.5",
  "0.0.0.0",
  "127.0.0.2",
  "[::2]:80",
  "localhost:",
  "localhost:abc",
  "[::1",
  "[::1]x",
  "127.0.0.1:80:80",
];

const LOOPBACK_ORIGINS = [
  undefined,
  "http://localhost",
  "http://localhost:5173",
  "https://127.0.0.1:8443",
  "http://[::1]:3000",
  "HTTP://LOCALHOST",
];
const FOREIGN_ORIGINS = [
  "null",
  "",
  "https://evil.example",
  "http://localhost.evil.example",
  "http://127.0.0.1.nip.io",
  "chrome-extension://abcdef",
  "file://",
  "not a url",
];

describe("isLoopbackHost", () => {
  it.each(LOOPBACK_HOSTS)("accepts the loopback name %s", (h) => expect(isLoopbackHost(h)).toBe(true));
  it.each(FOREIGN_HOSTS)("refuses %s", (h) => expect(isLoopbackHost(h)).toBe(false));
});

describe("isLoopbackOrigin", () => {
  it.each(LOOPBACK_ORIGINS)("accepts %s", (o) => expect(isLoopbackOrigin(o)).toBe(true));
  it.each(FOREIGN_ORIGINS)("refuses %s", (o) => expect(isLoopbackOrigin(o)).toBe(false));
});
