// The shapes of pi's RPC records (docs/rpc.md, rpc-commands.md, rpc-extension-ui.md and json.md
// in @earendil-works/pi-coding-agent), and the one place a stdout record is sorted into them.
import { isObject } from '../api/json.ts';
import type { DialogAnswer } from '../api/types.ts';

/** A command on pi's stdin; `id` is added by the client. */
export interface RpcCommand {
  type: string;
  [field: string]: unknown;
}

export type RpcResponse =
  | { type: 'response'; id?: string; command: string; success: true; data?: unknown }
  | { type: 'response'; id?: string; command: string; success: false; error: string };

export type DialogMethod = 'select' | 'confirm' | 'input' | 'editor';
export type FireAndForgetMethod = 'notify' | 'setStatus' | 'setWidget' | 'setTitle' | 'set_editor_text';

/** `extension_ui_request`: a dialog waits for an `extension_ui_response`; the rest do not. */
export type UiRequest =
  | {
      type: 'extension_ui_request';
      id: string;
      method: DialogMethod;
      title: string;
      message?: string;
      options?: string[];
      placeholder?: string;
      prefill?: string;
      /** ms after which pi resolves the dialog itself. */
      timeout?: number;
    }
  | { type: 'extension_ui_request'; id: string; method: 'notify'; message: string; notifyType?: 'info' | 'warning' | 'error' }
  | { type: 'extension_ui_request'; id: string; method: 'setStatus'; statusKey: string; statusText?: string }
  | { type: 'extension_ui_request'; id: string; method: 'setWidget'; widgetKey: string; widgetLines?: string[]; widgetPlacement?: string }
  | { type: 'extension_ui_request'; id: string; method: 'setTitle'; title: string }
  | { type: 'extension_ui_request'; id: string; method: 'set_editor_text'; text: string };

export type DialogRequest = Extract<UiRequest, { method: DialogMethod }>;

/** Any other record: a session event (`agent_start`, `message_update`, `tool_execution_end`…). */
export interface RpcEvent {
  type: string;
  [field: string]: unknown;
}

/**
 * What became of a `prompt`, `steer` or `follow_up` (pi 0.99 and later say it in the response's
 * data): `started` a run, `queued` into the running one, or `handled` without a run (an
 * extension command: no agent_settled follows). Null when pi does not say (0.87).
 */
export type Disposition = 'started' | 'queued' | 'handled';

export function dispositionOf(data: unknown): Disposition | null {
  const disposition = isObject(data) ? data.disposition : undefined;
  return disposition === 'started' || disposition === 'queued' || disposition === 'handled' ? disposition : null;
}

/** An `extension_ui_response`'s answer: what HubApi's `pi.answer` carries, passed through. */
export type UiAnswer = DialogAnswer;

export type RpcRecord =
  | { kind: 'response'; response: RpcResponse }
  | { kind: 'ui'; request: UiRequest }
  | { kind: 'event'; event: RpcEvent }
  | { kind: 'invalid'; reason: string };

const DIALOGS: readonly string[] = ['select', 'confirm', 'input', 'editor'];
const FIRE_AND_FORGET: readonly string[] = ['notify', 'setStatus', 'setWidget', 'setTitle', 'set_editor_text'];

export function isDialog(request: UiRequest): request is DialogRequest {
  return isDialogMethod(request.method);
}

/** Whether an `extension_ui_request` of this method waits for an answer. */
export function isDialogMethod(method: unknown): boolean {
  return typeof method === 'string' && DIALOGS.includes(method);
}

/** Sorts one parsed stdout line; a record pi would never send comes back `invalid` with a reason. */
export function classifyRecord(value: unknown): RpcRecord {
  if (!isObject(value)) return { kind: 'invalid', reason: 'record is not a JSON object' };
  if (typeof value.type !== 'string') return { kind: 'invalid', reason: 'record has no string "type"' };
  if (value.type === 'response') {
    if (typeof value.command !== 'string' || typeof value.success !== 'boolean') {
      return { kind: 'invalid', reason: 'response needs a string "command" and a boolean "success"' };
    }
    if (value.id !== undefined && typeof value.id !== 'string') return { kind: 'invalid', reason: 'response "id" must be a string' };
    if (!value.success && typeof value.error !== 'string') {
      return { kind: 'invalid', reason: `failed ${value.command} response has no string "error"` };
    }
    return { kind: 'response', response: value as unknown as RpcResponse };
  }
  if (value.type === 'extension_ui_request') {
    if (typeof value.id !== 'string' || typeof value.method !== 'string') {
      return { kind: 'invalid', reason: 'extension_ui_request needs a string "id" and "method"' };
    }
    if (!isDialogMethod(value.method) && !FIRE_AND_FORGET.includes(value.method)) {
      return { kind: 'invalid', reason: `extension_ui_request has unknown method "${value.method}"` };
    }
    if (value.options !== undefined && !(Array.isArray(value.options) && value.options.every((o) => typeof o === 'string'))) {
      return { kind: 'invalid', reason: `extension_ui_request ${value.method}: "options" must be a list of strings` };
    }
    return { kind: 'ui', request: value as unknown as UiRequest };
  }
  return { kind: 'event', event: value as RpcEvent };
}
