/**
 * The output items of one Responses stream, as the reader meets them again and again (docs/client-tools.md "One
 * action per call"): each call item is known again by its item id, else by its call_id (Hermes lists its items in
 * response.completed without ids), else by its output index, so that a call runs (and its cue plays) once, at
 * the first event that carries its complete arguments, and a backend-run call reports running once and done once.
 * A second item with its own id under a call_id already taken is a duplicate call: not run, no cue, no status,
 * nothing sent back.
 */
import type { CallRunner } from "./calls.ts";
import type { EngineEvent } from "./types.ts";

type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
export const str = (v: unknown): string => (typeof v === "string" ? v : "");

interface CallItem {
  itemId: string;
  callId: string;
  name: string;
  arguments: string;
  released: boolean;
  backend: boolean;
  position: number;
  /** Backend status already reported. */
  running: boolean;
  done: boolean;
  /** A second item under a call id an earlier item of this response holds: it is not run, played or shown. */
  duplicate: boolean;
}

/** Item types a backend runs itself (hosted and MCP tools); shown as tool status only. */
const BACKEND_CALL = /_call$/;

const isCallItem = (item: Obj) => item.type === "function_call" || BACKEND_CALL.test(str(item.type));

/** The call items and reasoning items of one response. */
export class ResponseItems {
  /** Reasoning items by id, as the round trip sends them back. */
  readonly reasoning = new Map<string, Obj>();
  /** Output position of each released call id, to send calls back in the order the response produced them. */
  readonly order = new Map<string, number>();
  private readonly byItem = new Map<string, CallItem>();
  private readonly byCall = new Map<string, CallItem>();
  private readonly byIndex = new Map<number, CallItem>();
  private itemCount = 0;

  constructor(
    private readonly runner: CallRunner,
    private readonly emit: (e: EngineEvent) => void,
  ) {}

  /** response.output_item.added: a call item starts; its arguments are complete only when sent whole. */
  added(item: Obj, outputIndex: unknown): void {
    if (!isCallItem(item)) return;
    const call = this.track(item, outputIndex);
    if (str(item.arguments) && item.status !== "incomplete") this.release(call, item.arguments);
  }

  /** response.function_call_arguments.delta: a piece of a call's arguments, kept until they are complete. */
  delta(payload: Obj): void {
    const call = this.byEvent(payload);
    if (call && !call.released) call.arguments += str(payload.delta);
  }

  /** response.function_call_arguments.done: the call's complete arguments. */
  argumentsDone(payload: Obj): void {
    const call = this.byEvent(payload);
    if (call) this.release(call, payload.arguments);
  }

  /**
   * An item listed whole (output_item.done, a bare function_call event, a final response's output); `complete`
   * says whether its arguments may be taken as complete ones.
   */
  finish(item: Obj, outputIndex: unknown, complete = item.status !== "incomplete"): void {
    if (item.type === "reasoning") {
      this.reasoning.set(str(item.id) || `rs_${this.reasoning.size}`, item);
      return;
    }
    if (!isCallItem(item)) return;
    const call = this.track(item, outputIndex);
    // A call cut off by the output limit is not a call: its partial arguments never run (docs/client-tools.md).
    if (complete) this.release(call, item.arguments ?? "");
    if (call.backend && !call.duplicate && !call.done) {
      call.done = true;
      this.emit({ type: "tool_status", call_id: call.callId, name: call.name, status: "done" });
    }
  }

  private byEvent(payload: Obj): CallItem | undefined {
    return this.byItem.get(str(payload.item_id)) ?? this.byIndex.get(payload.output_index as number);
  }

  private find(item: Obj, outputIndex: unknown): CallItem | undefined {
    const itemId = str(item.id);
    const callId = str(item.call_id);
    if (itemId && this.byItem.has(itemId)) return this.byItem.get(itemId);
    if (callId) {
      const known = this.byCall.get(callId);
      // Two items that both name their own, different ids are two calls, even under one call_id.
      if (known && !(itemId && known.itemId && known.itemId !== itemId)) return known;
      return undefined;
    }
    if (!itemId && typeof outputIndex === "number") return this.byIndex.get(outputIndex);
    return undefined;
  }

  private track(item: Obj, outputIndex: unknown): CallItem {
    let call = this.find(item, outputIndex);
    if (!call) call = this.add(item, outputIndex);
    else if (!call.name && str(item.name)) {
      // Some servers name the call only when the item completes.
      call.name = str(item.name);
      call.backend = item.type !== "function_call" || !this.runner.isClientTool(call.name);
    }
    if (!call.itemId && str(item.id)) {
      call.itemId = str(item.id);
      this.byItem.set(call.itemId, call);
    }
    if (!call.duplicate && call.backend && call.name && !call.running) {
      call.running = true;
      this.emit({ type: "tool_status", call_id: call.callId, name: call.name, status: "running" });
    }
    return call;
  }

  private add(item: Obj, outputIndex: unknown): CallItem {
    const isFunction = item.type === "function_call";
    const name = isFunction ? str(item.name) : str(item.name) || str(item.type);
    const itemId = str(item.id);
    const callId = str(item.call_id) || itemId || `item_${this.itemCount}`;
    const call: CallItem = {
      itemId,
      callId,
      name,
      arguments: "",
      released: false,
      backend: !isFunction || !this.runner.isClientTool(name),
      position: typeof outputIndex === "number" ? outputIndex : this.itemCount,
      running: false,
      done: false,
      duplicate: this.byCall.has(callId),
    };
    this.itemCount++;
    if (itemId) this.byItem.set(itemId, call);
    if (!call.duplicate) this.byCall.set(callId, call);
    if (!this.byIndex.has(call.position)) this.byIndex.set(call.position, call);
    return call;
  }

  private release(call: CallItem, args: unknown): void {
    // A call runs once, and only when both its name and its complete arguments are known.
    if (call.duplicate || call.released || typeof args !== "string" || !call.name) return;
    call.released = true;
    call.arguments = args;
    this.order.set(call.callId, call.position);
    this.runner.release(call.callId, call.name, args);
  }
}
