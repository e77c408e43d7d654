/**
 * The keys this module defines, registered in the one schema table (docs/store.md lists every key).
 * Imported by store.ts, so every process that opens the store (host, `yui store`, `yui chat`) validates alike.
 */
import { z } from "zod";
// Keys other modules own, registered here too so `yui store` validates them like the app does.
import "../ingress/agent-notify-key.ts";
import "../server/history.ts";
import { DEFAULT_PRESET, PresetIdSchema, PresetListSchema } from "../../src/app/presets/preset.ts";
import { emptyRelations, RelationsStateSchema } from "../../src/app/relations/relations.ts";
import {
  ADDRESSED_CHAIN_MAX_KEY,
  DEFAULT_ADDRESSED_CHAIN_MAX,
  MAX_ADDRESSED_CHAIN,
} from "../../src/app/turn/addressing.ts";
import { registerKeySchema } from "./schema.ts";

const Switch = z.strictObject({ enabled: z.boolean() });

registerKeySchema({
  pattern: "yui.browser",
  schema: Switch,
  default: { enabled: false },
  doc: "The browser tool's switch (runs backend JavaScript in ego lite); off by default.",
});
registerKeySchema({
  pattern: "yui.relations",
  schema: Switch,
  default: { enabled: true },
  doc: "The Relations switch, one for every preset; on by default.",
});
registerKeySchema({
  pattern: "yui.screen_capture",
  schema: Switch,
  default: { enabled: false },
  doc: "The screen capture switch (look at: screen); off by default.",
});
registerKeySchema({
  pattern: "yui.presets",
  schema: PresetListSchema,
  default: [DEFAULT_PRESET],
  doc: "Every preset (character): id, name, avatar, voice, persona, backend settings.",
});
registerKeySchema({
  pattern: "yui.presets.active",
  schema: PresetIdSchema,
  default: DEFAULT_PRESET.id,
  doc: "The preset main shows.",
});
registerKeySchema({
  pattern: "yui.presets.open",
  schema: z.array(PresetIdSchema),
  default: [],
  doc: "The presets open in pet windows, in opening order.",
});
registerKeySchema({
  pattern: "yui.<presetId>.api_key",
  schema: z.string().max(4096),
  default: "",
  secret: true,
  doc: "The preset's backend API key; host-side only, never sent to a page.",
});
registerKeySchema({
  pattern: "yui.<presetId>.relations",
  schema: RelationsStateSchema,
  default: emptyRelations(),
  doc: "The preset's relations: values per target, change log, daily spend (docs/signals-ingress.md).",
});
registerKeySchema({
  pattern: ADDRESSED_CHAIN_MAX_KEY,
  schema: z.int().min(0).max(MAX_ADDRESSED_CHAIN),
  default: DEFAULT_ADDRESSED_CHAIN_MAX,
  doc: "rate_limit.addressed_chain_max: addressed turns in a row after one user message; 0 turns them off.",
});
