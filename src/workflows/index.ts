/**
 * `mcp-temporal-tasks/workflow`: what a tool's workflow code uses. Workflow-safe only: nothing
 * here pulls Node or the MCP SDK into the workflow bundle.
 */
export {
  continueAsNewIfNeeded,
  loop,
  type LoopTurn,
  protocolError,
  setStatusMessage,
  textResult,
  waitOrContinueAsNew,
} from './runtime';
export { elicit, type InputOptions, InputTimeout, InputTimeoutError, requestInput, requestInputs } from './inputs';
export { type ActivityUndo, Compensations, type Undo, UNDO_BUDGET_BYTES, undoActivity, withCompensation } from './compensation';
export * from '../contract';
