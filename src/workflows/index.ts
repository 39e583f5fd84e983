/**
 * `mcp-temporal-tasks/workflow`: what a tool's workflow code uses. Workflow-safe only: nothing
 * here pulls Node or the MCP SDK into the workflow bundle.
 */
export {
  continueAsNewIfNeeded,
  elicit,
  type InputOptions,
  InputTimeout,
  InputTimeoutError,
  loop,
  type LoopTurn,
  protocolError,
  requestInput,
  requestInputs,
  setStatusMessage,
  textResult,
  waitOrContinueAsNew,
} from './runtime';
export { type ActivityUndo, Compensations, type Undo, UNDO_BUDGET_BYTES, undoActivity, withCompensation } from './compensation';
export * from '../contract';
