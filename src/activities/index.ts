/**
 * `mcp-temporal-tasks/activity`: what a tool's activities use. Activities run in the worker's
 * Node process (not the workflow sandbox), so this may use Node; it loads no server code.
 */
export { heartbeatKeepingProgress, previousProgress, reportProgress } from './progress';
export { heartbeating, type HeartbeatingOptions } from './heartbeating';
export { idempotencyKey } from './idempotency';
export {
  MAX_RESULT_BYTES,
  ACTIVITY_PROGRESS_KEY,
  type ActivityHeartbeatDetails,
  type ActivityProgress,
  activityProgressOf,
  activityProgressText,
} from '../contract';
