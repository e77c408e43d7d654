// bench:router: per-event SSE latency, SSE throughput, request/response latency and throughput,
// direct to a mod, through the router, and through nginx (streaming proxy, buffering off), in one run.
// Every server is its own process; this process is only the client.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@yui/mod-kit/testing";

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}
const CLOCK_TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

/** The pids whose CPU counts for a target: the router process, or nginx's master and its worker. */
function pidsOf(root: number): number[] {
  const kids = readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/stat`, "utf8").split(") ")[1]!.split(" ")[1] === String(root);
      } catch {
        return false;
      }
    })
    .map(Number);
  return [root, ...kids];
}
const cpuOf = (pids: number[]) => pids.reduce((sum, p) => sum + cpuMs(p), 0);

const HERE = fileURLToPath(new URL(".", import.meta.url));
const NGINX = process.env.NGINX ?? "/usr/sbin/nginx";
const children: ChildProcess[] = [];
const now = () => performance.timeOrigin + performance.now();

function startChild(cmd: string, args: string[]): Promise<number> {
  return startChildWithPid(cmd, args).then((c) => c.port);
}

function startChildWithPid(cmd: string, args: string[]): Promise<{ port: number; pid: number }> {
  const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout?.once("data", (c: Buffer) =>
      resolve({ port: Number(c.toString().trim()), pid: child.pid! }),
    );
    child.once("exit", (code) => reject(new Error(`${cmd} exited with ${code}`)));
  });
}

async function startNginx(upstreamPort: number): Promise<{ port: number; dir: string; pid: number }> {
  const dir = mkdtempSync(join(tmpdir(), "bench-nginx-"));
  const port = await freePort();
  // One worker, like the router's one Node thread; buffering off both ways, as a streaming proxy must be.
  writeFileSync(
    join(dir, "nginx.conf"),
    `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  upstream mod { server 127.0.0.1:${upstreamPort}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    tcp_nodelay on;
    gzip off;
    location /bench/mcp {
      proxy_pass http://mod/mcp;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host 127.0.0.1:${upstreamPort};
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_cache off;
      proxy_read_timeout 1h;
    }
  }
}
`,
  );
  const child = spawn(NGINX, ["-p", dir, "-c", join(dir, "nginx.conf"), "-g", "daemon off;"], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  children.push(child);
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((r) => {
      const req = request({ host: "127.0.0.1", port, path: "/", method: "GET" }, (res) => {
        res.resume();
        r(true);
      });
      req.on("error", () => r(false));
      req.end();
    });
    if (up) return { port, dir, pid: child.pid! };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("nginx did not start");
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
const median = (xs: number[]) => percentile(xs, 50);

/** Reads one SSE stream to its end; returns per-event latencies (ms), event count, bytes and seconds. */
function readSse(port: number, path: string, query: string) {
  return new Promise<{ latencies: number[]; events: number; bytes: number; seconds: number }>(
    (resolve, reject) => {
      const latencies: number[] = [];
      let events = 0;
      let bytes = 0;
      let buf = "";
      const start = now();
      const req = request({
        host: "127.0.0.1",
        port,
        path: `${path}?${query}`,
        headers: { accept: "text/event-stream" },
      });
      req.on("response", (res) => {
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          const t = now();
          bytes += c.length;
          buf += c;
          let cut = buf.indexOf("\n\n");
          while (cut >= 0) {
            const ev = buf.slice(0, cut);
            buf = buf.slice(cut + 2);
            events++;
            const m = /"t":([\d.]+)/.exec(ev);
            if (m) latencies.push(t - Number(m[1]));
            cut = buf.indexOf("\n\n");
          }
        });
        res.on("end", () => resolve({ latencies, events, bytes, seconds: (now() - start) / 1000 }));
      });
      req.on("error", reject);
      req.end();
    },
  );
}

const BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "x", arguments: {} },
});

function post(port: number, path: string, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = now();
    const req = request({
      host: "127.0.0.1",
      port,
      path,
      method: "POST",
      agent,
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(BODY) },
    });
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => resolve(now() - t0));
    });
    req.on("error", reject);
    req.end(BODY);
  });
}

async function reqLatency(port: number, path: string, n: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await post(port, path, agent));
  agent.destroy();
  return out;
}

async function reqThroughput(port: number, path: string, n: number, concurrency: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  let left = n;
  const t0 = now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) await post(port, path, agent);
    }),
  );
  const seconds = (now() - t0) / 1000;
  agent.destroy();
  return n / seconds;
}

interface Row {
  /** The proxy's own CPU per SSE event and per request (µs); 0 for direct. */
  cpuPerEvent: number;
  cpuPerReq: number;
  sseP50: number;
  sseP99: number;
  sseEventsPerS: number;
  sseMBps: number;
  reqP50: number;
  reqP99: number;
  reqPerS: number;
}

async function measure(port: number, path: string, rounds: number, pids: number[]): Promise<Row> {
  const cpu = () => (pids.length ? cpuOf(pids) : 0);
  const r: Record<keyof Row, number[]> = {
    cpuPerEvent: [],
    cpuPerReq: [],
    sseP50: [],
    sseP99: [],
    sseEventsPerS: [],
    sseMBps: [],
    reqP50: [],
    reqP99: [],
    reqPerS: [],
  };
  for (let round = 0; round < rounds; round++) {
    const paced = await readSse(port, path, "n=300&interval=2");
    r.sseP50.push(percentile(paced.latencies, 50));
    r.sseP99.push(percentile(paced.latencies, 99));
    const c0 = cpu();
    const blast = await readSse(port, path, "n=60000&interval=0");
    r.cpuPerEvent.push(((cpu() - c0) * 1000) / blast.events);
    r.sseEventsPerS.push(blast.events / blast.seconds);
    r.sseMBps.push(blast.bytes / blast.seconds / 1e6);
    const lat = await reqLatency(port, path, 600);
    r.reqP50.push(percentile(lat, 50));
    r.reqP99.push(percentile(lat, 99));
    const c1 = cpu();
    r.reqPerS.push(await reqThroughput(port, path, 6000, 16));
    r.cpuPerReq.push(((cpu() - c1) * 1000) / 6000);
  }
  return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, median(v)])) as unknown as Row;
}

async function main() {
  if (spawnSync(NGINX, ["-v"]).error) {
    throw new Error(
      `nginx not found at ${NGINX}: run scripts/setup-system.sh (Mods/router/apt-packages.txt)`,
    );
  }
  const tsx = ["--import", "tsx"];
  const modPort = await startChild(process.execPath, [...tsx, join(HERE, "bench-mod.ts")]);
  const routerChild = await startChildWithPid(process.execPath, [
    ...tsx,
    join(HERE, "router-child.ts"),
    String(modPort),
  ]);
  const nginx = await startNginx(modPort);
  const rounds = Number(process.env.BENCH_ROUNDS ?? "3");
  const targets = [
    { name: "direct", port: modPort, path: "/mcp", pids: [] as number[] },
    { name: "router", port: routerChild.port, path: "/bench/mcp", pids: [routerChild.pid] },
    { name: "nginx", port: nginx.port, path: "/bench/mcp", pids: pidsOf(nginx.pid) },
  ];
  try {
    // Warm-up: JIT, keep-alive pools, nginx's upstream connections.
    for (const t of targets) {
      await readSse(t.port, t.path, "n=2000&interval=0");
      await reqThroughput(t.port, t.path, 500, 8);
    }
    const rows: Record<string, Row> = {};
    // Interleaved rounds, so a noisy neighbour on the machine hits all three alike.
    const per: Record<string, Row[]> = { direct: [], router: [], nginx: [] };
    for (let round = 0; round < rounds; round++) {
      for (const t of targets) per[t.name]!.push(await measure(t.port, t.path, 1, t.pids));
    }
    for (const t of targets) {
      const rs = per[t.name]!;
      rows[t.name] = Object.fromEntries(
        (Object.keys(rs[0]!) as (keyof Row)[]).map((k) => [k, median(rs.map((r) => r[k]))]),
      ) as unknown as Row;
    }
    const f = (x: number, d = 0) => x.toFixed(d);
    console.log(
      `bench:router (${rounds} interleaved rounds, medians; Node ${process.version}; nginx 1 worker)`,
    );
    console.log(
      "| path | SSE event p50 ms | SSE event p99 ms | SSE events/s | SSE MB/s | req p50 ms | req p99 ms | req/s (16 conc.) | proxy CPU µs/event | proxy CPU µs/req |",
    );
    console.log("|---|---|---|---|---|---|---|---|---|---|");
    for (const t of targets) {
      const r = rows[t.name]!;
      console.log(
        `| ${t.name} | ${f(r.sseP50, 3)} | ${f(r.sseP99, 3)} | ${f(r.sseEventsPerS)} | ${f(r.sseMBps, 1)} | ${f(r.reqP50, 3)} | ${f(r.reqP99, 3)} | ${f(r.reqPerS)} | ${f(r.cpuPerEvent, 1)} | ${f(r.cpuPerReq, 1)} |`,
      );
    }
    const router = rows.router!;
    const ng = rows.nginx!;
    const direct = rows.direct!;
    console.log("");
    console.log(
      "router/nginx ratios (latency: <= 1 means the router adds no more than nginx; throughput: >= 1 means at least nginx's):",
    );
    console.log(
      `  SSE event latency p50 ${f(router.sseP50 / ng.sseP50, 2)}  p99 ${f(router.sseP99 / ng.sseP99, 2)}`,
    );
    console.log(`  SSE throughput ${f(router.sseEventsPerS / ng.sseEventsPerS, 2)}`);
    console.log(
      `  request latency p50 ${f(router.reqP50 / ng.reqP50, 2)}  p99 ${f(router.reqP99 / ng.reqP99, 2)}`,
    );
    console.log(`  request throughput ${f(router.reqPerS / ng.reqPerS, 2)}`);
    // On a shared machine wall-clock throughput follows the neighbours; CPU per operation does not.
    // The throughput a proxy can sustain is 1 / its CPU per operation: nginx/router CPU >= 1 meets the goal.
    console.log(
      `  sustainable throughput by CPU (nginx CPU / router CPU): SSE ${f(ng.cpuPerEvent / router.cpuPerEvent, 2)}  requests ${f(ng.cpuPerReq / router.cpuPerReq, 2)}`,
    );
    console.log("added latency over direct (ms, p50):");
    console.log(
      `  SSE event: router ${f(router.sseP50 - direct.sseP50, 3)}, nginx ${f(ng.sseP50 - direct.sseP50, 3)}; request: router ${f(router.reqP50 - direct.reqP50, 3)}, nginx ${f(ng.reqP50 - direct.reqP50, 3)}`,
    );
  } finally {
    for (const c of children) c.kill("SIGTERM");
    rmSync(nginx.dir, { recursive: true, force: true });
  }
}

await main();
