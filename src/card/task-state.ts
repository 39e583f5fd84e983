/**
 * What the card shows, read from a task tool's result (a task handle, the tool's own result, a
 * cancel's answer). Read defensively: a field that is missing or of another shape is left out,
 * never guessed, because the handle's structuredContent may grow.
 */

/** A flat, elicitation-style JSON Schema property. */
export interface FieldSchema {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
}

export interface Question {
  key: string;
  message: string;
  /** A form's fields; absent for a request the card cannot answer (e.g. sampling). */
  fields?: Record<string, FieldSchema>;
  required: string[];
}

export interface CardState {
  taskId?: string;
  tool?: string;
  status: string;
  statusMessage?: string;
  progress?: { done: number; total?: number };
  questions: Question[];
  /** Set once the task ended: the text (and structured data) of its result. */
  result?: { text: string; isError: boolean; data?: unknown };
}

const RUNNING = new Set(['working', 'input_required', 'cancelling']);
const ENDED = new Set(['completed', 'failed', 'cancelled']);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The state a result shows; `known` fills what a later result does not repeat (taskId, tool). */
export function readResult(result: unknown, known: Partial<CardState> = {}): CardState {
  const r = isObject(result) ? result : {};
  const data = isObject(r.structuredContent) ? r.structuredContent : {};
  const taskId = text(data.taskId) ?? known.taskId;
  const tool = text(data.tool) ?? known.tool;
  const status = text(data.status);
  // a host whose client declared elicitation may get the question as an input_required round instead of a handle
  if (r.resultType === 'input_required' && taskId)
    return {
      taskId,
      tool,
      status: 'input_required',
      statusMessage: known.statusMessage,
      progress: known.progress,
      questions: questionsOf(r),
    };
  if (status && RUNNING.has(status) && taskId) {
    const statusMessage = text(data.statusMessage);
    return { taskId, tool, status, statusMessage, progress: progressOf(data, statusMessage), questions: questionsOf(data) };
  }
  const isError = r.isError === true;
  const ended = status && ENDED.has(status) ? status : isError ? 'error' : 'completed';
  return { taskId, tool, status: ended, questions: [], result: { text: contentText(r.content), isError, data: r.structuredContent } };
}

export function isRunning(state: CardState): boolean {
  return !state.result;
}

/** done/total: numbers the handle may carry, else the "(4,000 of 10,000)" or "step 2/5" of the statusMessage. */
export function progressOf(data: Json, statusMessage?: string): CardState['progress'] {
  const p = isObject(data.progress) ? data.progress : data;
  const done = typeof p.done === 'number' ? p.done : typeof p.progress === 'number' ? p.progress : undefined;
  if (done !== undefined) return { done, ...(typeof p.total === 'number' ? { total: p.total } : {}) };
  if (!statusMessage) return undefined;
  const n = (s: string) => Number(s.replace(/,/g, ''));
  const of = /\(([\d,]+) of ([\d,]+)\)\s*$/.exec(statusMessage);
  if (of) return { done: n(of[1]), total: n(of[2]) };
  const slash = /\b(\d+)\/(\d+)\b/.exec(statusMessage);
  return slash ? { done: n(slash[1]), total: n(slash[2]) } : undefined;
}

/** The pending questions: the handle's inputRequests (key -> elicitation/create or another request). */
function questionsOf(data: Json): Question[] {
  const requests = isObject(data.inputRequests) ? data.inputRequests : {};
  return Object.entries(requests).map(([key, request]) => {
    const req = isObject(request) ? request : {};
    const params = isObject(req.params) ? req.params : {};
    if (req.method !== 'elicitation/create')
      return { key, message: `${text(req.method) ?? 'a request'}: answer it in the conversation`, required: [] };
    const schema = isObject(params.requestedSchema) ? params.requestedSchema : {};
    const props = isObject(schema.properties) ? schema.properties : {};
    const fields = Object.fromEntries(Object.entries(props).filter(([, s]) => isObject(s))) as Record<string, FieldSchema>;
    const required = Array.isArray(schema.required) ? schema.required.filter((k): k is string => typeof k === 'string') : [];
    return { key, message: text(params.message) ?? '', fields, required };
  });
}

function contentText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((c) => (isObject(c) && c.type === 'text' ? (text(c.text) ?? '') : isObject(c) ? `[${String(c.type)}]` : ''))
    .filter(Boolean)
    .join('\n');
}

/**
 * A form field's raw input as the schema's type; an error text when it does not fit. `raw` is
 * the input's value (a checkbox: its checked state).
 */
export function fieldValue(schema: FieldSchema, raw: string | boolean): { value?: unknown; error?: string } {
  if (schema.type === 'boolean') return { value: raw === true };
  const s = String(raw).trim();
  if (s === '') return {};
  if (schema.type === 'number' || schema.type === 'integer') {
    const n = Number(s);
    if (!Number.isFinite(n) || (schema.type === 'integer' && !Number.isInteger(n)))
      return { error: `${schema.type === 'integer' ? 'a whole number' : 'a number'} is needed` };
    if (schema.minimum !== undefined && n < schema.minimum) return { error: `at least ${schema.minimum}` };
    if (schema.maximum !== undefined && n > schema.maximum) return { error: `at most ${schema.maximum}` };
    return { value: n };
  }
  if (schema.enum && !schema.enum.map(String).includes(s)) return { error: `one of ${schema.enum.map(String).join(', ')}` };
  return { value: s };
}
