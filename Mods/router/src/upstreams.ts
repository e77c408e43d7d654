/** One routed mod: the catalog's name for it and its port on 127.0.0.1. */
export interface Upstream {
  mod: string;
  port: number;
}

/** The routing table, in one place: keys are the route prefixes (`/<prefix>/mcp`), values the mods behind them. */
export const UPSTREAMS: Readonly<Record<string, Upstream>> = Object.freeze({
  desktop: { mod: "desktop-control", port: 9000 },
  shell: { mod: "shell-sandbox", port: 9001 },
  avatar: { mod: "avatar", port: 9002 },
  factorio: { mod: "factorio", port: 9003 },
});

/** The router's own port in the catalog. */
export const ROUTER_PORT = 8080;
