import fc from "fast-check";

// Generated HTTP/1.1 request streams for the framing fuzz (framing-fuzz.test.ts). Each message is either plain
// (every part drawn from well-formed choices, so pipelines run long and thousands of requests get framed) or
// odd: every part then also draws from the shapes two parsers have been known to read differently.

const HOST = "Host: 127.0.0.1";

type Choices<T> = [weight: number, value: T][];

/** One of a few weighted choices: the well-formed ones, plus the odd ones when `odd`. */
const pick = <T>(odd: boolean, plain: Choices<T>, oddities: Choices<T> = []): fc.Arbitrary<T> =>
  fc.oneof(
    ...[...plain, ...(odd ? oddities : [])].map(([weight, v]) => ({ weight, arbitrary: fc.constant(v) })),
  );

const method = (odd: boolean) =>
  pick(
    odd,
    [
      [6, "POST"],
      [4, "GET"],
      [1, "PUT"],
      [1, "DELETE"],
      [1, "HEAD"],
      [1, "OPTIONS"],
      [1, "PATCH"],
      [1, "M-SEARCH"],
      [1, "QUERY"],
    ],
    [
      [1, "get"],
      [1, "FOO"],
      [1, "CONNECT"],
      [1, "PRI"],
    ],
  );

const target = (odd: boolean, i: number) =>
  pick(
    odd,
    [
      [12, `/raw/mcp?i=${i}`],
      [2, "/raw/mcp"],
      [1, `/raw/mcp?i=${i}#frag?#`],
      [1, `/raw/mcp?i=${i}&q="<>{}|\\^\``],
      [1, `http://127.0.0.1/raw/mcp?i=${i}`],
      [1, "*"],
      [1, "/other"],
    ],
    [
      [1, `/raw/mcp?i=${i}&\xe9`],
      [1, `/raw/mcp?i=${i}\x7f`],
      [1, `/raw/mcp?i=${i}\t`],
      [1, `http://127.0.0.1:8080?i=${i}`],
      [1, "HTTP://a@b@c/raw/mcp"],
      [1, "127.0.0.1:80"],
      [1, `/raw/mcp?i=${i} x`],
    ],
  );

const version = (odd: boolean) =>
  pick(
    odd,
    [
      [8, "HTTP/1.1"],
      [1, "HTTP/1.0"],
    ],
    [
      [1, "HTTP/1.2"],
      [1, "HTTP/2.0"],
      [1, "HTTP/0.9"],
      [1, "http/1.1"],
      [1, "HTTP/1.1 "],
    ],
  );

/** The end of a line: CRLF, or in an odd message sometimes a bare LF or CR. */
const eol = (odd: boolean) =>
  pick(
    odd,
    [[16, "\r\n"]],
    [
      [1, "\n"],
      [1, "\r"],
    ],
  );

/** Bytes that make a body (or a chunk) interesting to a smuggler: CR, LF, digits, a request line. */
const bodyText = fc
  .array(
    pick(true, [
      [8, "a"],
      [2, "0"],
      [2, "\r\n"],
      [1, "\r"],
      [1, "\n"],
      [1, ";"],
      [1, "\xff"],
      [1, `GET /raw/mcp?smuggled HTTP/1.1\r\n${HOST}\r\n\r\n`],
      [1, "0\r\n\r\n"],
    ]),
    { maxLength: 8 },
  )
  .map((parts) => parts.join(""));

const extraHeader = (odd: boolean) =>
  pick(
    odd,
    [
      [6, "X-A: v"],
      [2, "Content-Type: application/json"],
      [2, "Connection: keep-alive"],
      [1, "Connection: close"],
      [1, "Connection: keep-alive , x-a"],
      [1, "Connection: upgrade\r\nUpgrade: websocket"],
      [1, "Upgrade: websocket"],
      [1, "Expect: 100-continue"],
      [1, "X-H: \xe9\xa0"],
      [1, "X-E:"],
      [1, "Keep-Alive: timeout=5"],
      [1, "TE: trailers"],
      [1, `X-Big: ${"b".repeat(16_200)}`],
    ],
    [
      [1, "Connection: keep-alive\t"],
      [1, "Connection: close\t"],
      [1, "Proxy-Connection: close"],
      [1, "Proxy-Connection: keep-alive"],
      [1, "Proxy-Connection: upgrade\r\nUpgrade: websocket"],
      [1, "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__"],
      [1, "X-F: a\r\n folded"],
      [1, "X-F: a\r\n\tfolded"],
      [1, "X-S : v"],
      [1, " X-S: v"],
      [1, ": v"],
      [1, "X@Y: v"],
      [1, "X-B: a\rb"],
      [1, "X-B: a\nb"],
      [1, "X-C: a\x7fb"],
      [1, "X-C: a\x00b"],
      [1, "NoColon"],
      [1, "Origin: http://evil.example"],
      [1, "Host: evil.example"],
      [1, HOST],
      [1, `X-Big: ${"b".repeat(17_000)}`],
    ],
  );

/** How the body is declared: no body, a length (maybe off by `delta` from the real one), or chunked. */
export type Framing =
  | { kind: "none" }
  | { kind: "length"; headers: (n: number) => string[]; delta: number }
  | { kind: "chunked"; headers: string[] };

const lengthFraming = (odd: boolean): fc.Arbitrary<Framing> =>
  fc
    .tuple(
      pick<(n: number) => string[]>(
        odd,
        [
          [10, (n) => [`Content-Length: ${n}`]],
          [1, (n) => [`content-LENGTH:   ${n}  `]],
          [1, (n) => [`Content-Length: 0${n}`]],
        ],
        [
          [1, (n) => [`Content-Length: ${n}\t`]],
          [1, (n) => [`Content-Length: +${n}`]],
          [1, (n) => [`Content-Length: ${n}, ${n}`]],
          [1, (n) => [`Content-Length: ${n},${n + 1}`]],
          [1, (n) => [`Content-Length: ${n}`, `Content-Length: ${n}`]],
          [1, (n) => [`Content-Length: ${n}`, `Content-Length: ${n + 1}`]],
          [1, (n) => [`Content-Length: ${n} ${n}`]],
          [1, (n) => [`Content-Length: 0x${n.toString(16)}`]],
          [1, () => ["Content-Length: "]],
          [1, () => ["Content-Length: 99999999999999999999"]],
          [1, (n) => [`Content-Length: ${n}`, "Transfer-Encoding: chunked"]],
        ],
      ),
      pick(
        odd,
        [[1, 0]],
        [
          [1, -1],
          [1, 1],
          [1, 5],
        ],
      ),
    )
    .map(([headers, delta]): Framing => ({ kind: "length", headers, delta }));

const chunkedFraming = (odd: boolean): fc.Arbitrary<Framing> =>
  pick(
    odd,
    [
      [12, ["Transfer-Encoding: chunked"]],
      [1, ["transfer-encoding: Chunked"]],
      [1, ["Transfer-Encoding:   chunked  "]],
    ],
    [
      [1, ["Transfer-Encoding: chunked\t"]],
      [1, ["Transfer-Encoding: gzip, chunked"]],
      [1, ["Transfer-Encoding: chunked, identity"]],
      [1, ["Transfer-Encoding: identity"]],
      [1, ["Transfer-Encoding: chunked", "Transfer-Encoding: chunked"]],
      [1, ["Transfer-Encoding: gzip", "Transfer-Encoding: chunked"]],
      [1, ["Transfer-Encoding: chunked", "Content-Length: 3"]],
      [1, ["Transfer-Encoding: xchunked"]],
      [1, ["Transfer-Encoding: chunked,"]],
    ],
  ).map((headers): Framing => ({ kind: "chunked", headers }));

const framing = (odd: boolean): fc.Arbitrary<Framing> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant<Framing>({ kind: "none" }) },
    { weight: 4, arbitrary: lengthFraming(odd) },
    { weight: 4, arbitrary: chunkedFraming(odd) },
  );

/** A chunk-size line's size part and extensions, as sent (good, odd and bad). */
const chunkSize = (odd: boolean, n: number) => {
  const hex = n.toString(16);
  return pick(
    odd,
    [
      [16, hex],
      [1, hex.toUpperCase()],
      [1, `000${hex}`],
      [1, `${"0".repeat(14)}${hex}`],
      [1, `${hex};name`],
      [1, `${hex};name=value;other`],
      [1, `${hex};name="quoted \\" value"`],
      [1, `${hex};name=a"b c"`],
      [1, `${hex};;`],
      [1, `${hex};=v`],
    ],
    [
      [1, `0x${hex}`],
      [1, `${hex} `],
      [1, `${hex}\t`],
      [1, `${hex};name="unterminated`],
      [1, `${hex}; name=value`],
      [1, `${hex} ;name`],
      [1, `${hex};name=va lue`],
      [1, `${hex};name\rx`],
      [1, `${hex};${"e".repeat(17_000)}`],
      [1, (n + 1).toString(16)],
      [1, Math.max(0, n - 1).toString(16)],
      [1, "g"],
      [1, ""],
      [1, `-${n}`],
    ],
  );
};

const trailer = (odd: boolean) =>
  pick(
    odd,
    [
      [6, "X-T: v"],
      [1, "X-T: \xe9"],
      [1, `X-Big: ${"t".repeat(16_000)}`],
    ],
    [
      [1, "X-T v"],
      [1, " X-T: folded"],
      [1, "X-T : v"],
      [1, "Content-Length: 5"],
      [1, "Content-Length: x"],
      [1, "Transfer-Encoding: chunked"],
      [1, "Connection: close"],
      [1, "X-T: a\rb"],
      [1, "X-T: a\nb"],
      [1, `X-Big: ${"t".repeat(16_400)}`],
    ],
  );

/** A chunked body: chunks, the last chunk, trailers and the final CRLF, each part with its own oddities. */
const chunkedBody = (odd: boolean) =>
  fc
    .tuple(
      fc.array(
        bodyText.filter((t) => t.length > 0),
        { maxLength: 3 },
      ),
      pick(
        odd,
        [
          [10, "0"],
          [1, "000"],
          [1, "0;ext=1"],
        ],
        [
          [1, "0 "],
          [1, ""],
        ],
      ),
      fc.array(fc.tuple(trailer(odd), eol(odd)), { maxLength: 2 }),
      eol(odd),
      eol(odd),
      pick(
        odd,
        [[12, "\r\n"]],
        [
          [1, ""],
          [1, "\n"],
          [1, "x\r\n"],
        ],
      ),
    )
    .chain(([chunks, last, trailers, sizeEol, lastEol, dataEnd]) =>
      fc
        .tuple(...chunks.map((c) => chunkSize(odd, c.length)))
        .map(
          (sizes) =>
            chunks.map((c, i) => `${sizes[i]}${sizeEol}${c}${dataEnd}`).join("") +
            `${last}${lastEol}${trailers.map(([t, e]) => t + e).join("")}\r\n`,
        ),
    );

/** One request message, numbered i within its connection; odd in about a third of them. */
const message = (i: number) =>
  fc
    .integer({ min: 0, max: 2 })
    .map((n) => n === 0)
    .chain((odd) =>
      fc.record({
        method: method(odd),
        target: target(odd, i),
        version: version(odd),
        lineEnd: eol(odd),
        host: pick(
          odd,
          [
            [20, [HOST]],
            [1, ["host: localhost"]],
          ],
          [
            [1, []],
            [1, [HOST, HOST]],
          ],
        ),
        extra: fc.array(fc.tuple(extraHeader(odd), eol(odd)), { maxLength: 3 }),
        framing: framing(odd),
        body: bodyText,
        chunked: chunkedBody(odd),
        before: pick(
          odd,
          [[20, ""]],
          [
            [1, "\r\n"],
            [1, "\n"],
            [1, "\r\n\r\n"],
          ],
        ),
      }),
    )
    .map((m) => {
      const f = m.framing;
      const body = f.kind === "chunked" ? m.chunked : f.kind === "length" ? m.body : "";
      const framingHeaders =
        f.kind === "chunked"
          ? f.headers
          : f.kind === "length"
            ? f.headers(Math.max(0, Buffer.byteLength(m.body, "latin1") + f.delta))
            : [];
      const lines = [
        ...m.host.map((h) => `${h}\r\n`),
        ...m.extra.map(([h, e]) => h + e),
        ...framingHeaders.map((h) => `${h}\r\n`),
      ];
      return `${m.before}${m.method} ${m.target} ${m.version}${m.lineEnd}${lines.join("")}\r\n${body}`;
    });

/** A connection's bytes: 1-5 pipelined messages (maybe a tail of garbage), cut into writes at random points. */
export const connection = fc
  .tuple(
    fc
      .integer({ min: 1, max: 5 })
      .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => message(i + 1)))),
    pick(
      true,
      [[12, ""]],
      [
        [1, "garbage"],
        [1, "\r\n"],
        [1, `GET /raw/mcp?tail HTTP/1.1\r\n${HOST}\r\n`],
      ],
    ),
    fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 4 }),
  )
  .map(([messages, tail, cuts]) => {
    const bytes = Buffer.from(messages.join("") + tail, "latin1");
    const at = [...new Set(cuts.map((c) => Math.floor(c * bytes.length)))].sort((a, b) => a - b);
    const parts: Buffer[] = [];
    let from = 0;
    for (const c of [...at, bytes.length]) {
      if (c > from) parts.push(bytes.subarray(from, c));
      from = Math.max(from, c);
    }
    return parts;
  });
