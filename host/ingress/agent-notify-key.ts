/**
 * The agent-notify switch: the store key `yui.agent_notify` that binds the ingress (docs/store.md).
 * Registered at module load; host/store/keys.ts should import this module so `yui store` validates it too.
 */
import { z } from "zod";
import { registerKeySchema } from "../store/schema.ts";

/** The switch's store key. */
export const AGENT_NOTIFY_KEY = "yui.agent_notify";

/** `{ enabled, port? }`: the ingress binds 127.0.0.1:<port, default 8770> while enabled. */
export const AgentNotifySchema = z.strictObject({
  enabled: z.boolean(),
  port: z.number().int().min(1024).max(65535).optional(),
});
export type AgentNotify = z.infer<typeof AgentNotifySchema>;

registerKeySchema({
  pattern: AGENT_NOTIFY_KEY,
  schema: AgentNotifySchema,
  default: { enabled: false },
  doc: "The agent-notify switch: the loopback ingress (signals, avatar mod) binds 127.0.0.1:port (8770) while on; off by default.",
});
