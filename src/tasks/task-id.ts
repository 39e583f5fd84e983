import { randomBytes } from 'node:crypto';
import { TASK_ID_PREFIX } from '../contract';

/** A taskId is a bearer secret: 192 random bits, URL-safe, with a fixed prefix. It IS the workflow id. */
const TASK_ID_PATTERN = new RegExp(`^${TASK_ID_PREFIX}[A-Za-z0-9_-]{32}$`);

export function mintTaskId(): string {
  return TASK_ID_PREFIX + randomBytes(24).toString('base64url');
}

/** Checked before Temporal is touched: a malformed id is answered as unknown without a call. */
export function isTaskId(value: unknown): value is string {
  return typeof value === 'string' && TASK_ID_PATTERN.test(value);
}
