/** A preset (character) as the store holds it: its schema lives in the host–page contract (src/protocol/preset.ts). */
export * from "../../protocol/preset.ts";
