// Package mcptasks implements the MCP task runtime contract (docs/contract.md, version 1) for
// Temporal Go workflows: statusMessage, input requests answered by tasks/update (partial answers
// too), activity progress through heartbeat details, steps with undos, cooperative cancel, the
// claim guard and continue-as-new carrying pending input, undos and the claim deadline.
//
//	func Deploy(ctx workflow.Context, args Args, carry mcptasks.Carry) (Result, error) {
//		task, err := mcptasks.New(ctx, carry)
//		if err != nil { return Result{}, err }
//		return mcptasks.Run(ctx, task, func(ctx workflow.Context) (Result, error) {
//			task.SetStatusMessage("reserving a slot")
//			err := task.Step(ctx, mcptasks.Undo{Activity: "ReleaseSlot", Args: []any{id}, Step: "reserve a slot"},
//				func(ctx workflow.Context) error { return workflow.ExecuteActivity(ctx, ReserveSlot, id).Get(ctx, nil) })
//			...
//		})
//	}
package mcptasks

import (
	"context"
	"fmt"
	"strings"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
)

// The contract's names (src/contract.ts).
const (
	ContractVersion      = 1
	TaskMemoKey          = "mcpTask"     // written by the server at start; read it, never write it
	ProgressMemoKey      = "mcpProgress" // {status, statusMessage?, lastUpdatedAt, inputRequests}
	InputResponsesSignal = "mcp.inputResponses"
	TaskProgressQuery    = "mcp.taskProgress"
	ClaimedSignal        = "mcp.claimed" // no args: the task's handle reached its caller (memo mcpTask.claimWithinMs)
	ActivityProgressKey  = "mcpProgress" // first heartbeat detail {mcpProgress: {message, done?, total?}}
	ProtocolErrorType    = "McpProtocolError"
	InputTimeoutType     = "InputTimeout"
	UnansweredType       = "McpTaskUnanswered"
	UnclaimedType        = "McpTaskUnclaimed"
	ToolCancellationType = "ToolCancellation"
)

// TaskStatus is the Keyword search attribute the workflow keeps current where the server set it.
var TaskStatus = temporal.NewSearchAttributeKeyKeyword("McpTaskStatus")

// ReportProgress, from an activity: the task's statusMessage shows it while the activity runs,
// e.g. "exporting rows (4,000 of 10,000)". It is a heartbeat: Temporal keeps only the latest
// details, so a bare activity.RecordHeartbeat afterwards clears the progress. done and total are
// optional (nil). The SDK throttles heartbeats to 80% of the heartbeat timeout: keep it short.
func ReportProgress(ctx context.Context, message string, done, total *float64) {
	progress := map[string]any{"message": message}
	if done != nil {
		progress["done"] = *done
	}
	if total != nil {
		progress["total"] = *total
	}
	activity.RecordHeartbeat(ctx, map[string]any{ActivityProgressKey: progress})
}

// ProtocolError ends the task failed with this JSON-RPC error (data may be nil).
func ProtocolError(code int, message string, data any) error {
	details := map[string]any{"code": code}
	if data != nil {
		details["data"] = data
	}
	return temporal.NewNonRetryableApplicationError(message, ProtocolErrorType, nil, details)
}

// InputTimeout: no answer for these keys in time; they were withdrawn. Uncaught, it fails the task.
func InputTimeout(keys []string) error {
	return temporal.NewNonRetryableApplicationError(
		fmt.Sprintf("no answer for %s in time", strings.Join(keys, ", ")), InputTimeoutType, nil)
}

// IsInputTimeout tells an InputTimeout from other errors.
func IsInputTimeout(err error) bool {
	return hasType(err, InputTimeoutType)
}

func unansweredInput(keys []string, limitMs int64) error {
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf(
		"nobody answered %s within %d ms: the task ends, as nobody is left to answer it",
		strings.Join(keys, ", "), limitMs), UnansweredType, nil)
}

// undoFailure names a step left in place after its undo failed.
type undoFailure struct {
	Step  string `json:"step"`
	Error string `json:"error"`
}

func compensationFailed(failures []undoFailure, why string) error {
	listed := make([]string, len(failures))
	for i, f := range failures {
		listed[i] = fmt.Sprintf("%s (%s)", f.Step, f.Error)
	}
	if why != "" {
		why = " after " + why
	}
	message := fmt.Sprintf("%d step(s) could not be undone%s: %s", len(failures), why, strings.Join(listed, "; "))
	return ProtocolError(-32603, message, map[string]any{"undoFailures": failures})
}

// toolCancellation: the tool's own cancellation (a context it cancelled, a timeout of its own)
// ended it, not tasks/cancel. Worded as the TypeScript runtime words it.
func toolCancellation(err error) error {
	return temporal.NewNonRetryableApplicationError(
		"the tool's own cancellation scope was cancelled (an inner context), not tasks/cancel: "+err.Error(),
		ToolCancellationType, nil)
}
