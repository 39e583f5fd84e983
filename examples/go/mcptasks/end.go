package mcptasks

import (
	"errors"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Undo is a compensating activity: data (a registered activity name and its arguments), so it
// can travel through continue-as-new. It may run for a step that never took effect (a cancel
// while the step is in flight): make it idempotent, and a no-op then.
type Undo struct {
	Activity            string  `json:"activity"`
	Args                []any   `json:"args"`
	Step                string  `json:"step,omitempty"`                // what the step did: named when its undo fails
	StartToCloseSeconds float64 `json:"startToCloseSeconds,omitempty"` // default 60
	MaximumAttempts     int32   `json:"maximumAttempts,omitempty"`     // default 3: a compensation must end
}

// Step registers undo, then runs forward: the undo is registered first, so a cancel while the
// step is in flight undoes it too (run forward activities with WaitForCancellation so an undo
// never overtakes its step).
func (t *Task) Step(ctx workflow.Context, undo Undo, forward func(workflow.Context) error) error {
	t.undos = append([]Undo{undo}, t.undos...)
	return forward(ctx)
}

// Compensate undoes every registered step now, newest first, and forgets them. Every undo is
// attempted even when one fails, on a context the task's cancel cannot reach.
func (t *Task) Compensate(ctx workflow.Context) error {
	return t.compensate(ctx, "")
}

// compensate is Compensate; an undo failure names why (when non-empty) the steps were undone.
func (t *Task) compensate(ctx workflow.Context, why string) error {
	undos := t.undos
	t.undos = nil
	shielded, _ := workflow.NewDisconnectedContext(ctx)
	var failures []undoFailure
	for _, undo := range undos {
		step := undo.Step
		if step == "" {
			step = undo.Activity
		}
		t.SetStatusMessage("undoing: " + step)
		if err := runUndo(shielded, undo); err != nil {
			failures = append(failures, undoFailure{Step: step, Error: reason(err)})
		}
	}
	if len(failures) == 0 {
		return nil
	}
	steps := make([]string, len(failures))
	for i, f := range failures {
		steps[i] = f.Step
	}
	t.SetStatusMessage("could not undo: " + strings.Join(steps, ", "))
	return compensationFailed(failures, why)
}

func runUndo(ctx workflow.Context, undo Undo) error {
	seconds, attempts := undo.StartToCloseSeconds, undo.MaximumAttempts
	if seconds <= 0 {
		seconds = 60
	}
	if attempts <= 0 {
		attempts = 3
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Duration(seconds * float64(time.Second)),
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: attempts},
	})
	return workflow.ExecuteActivity(ctx, undo.Activity, undo.Args...).Get(ctx, nil)
}

// Run runs the workflow's body and ends the task as docs/contract.md's table says:
//   - a cancel Temporal delivered (also after the body returned, or with the body's failure):
//     every step is undone, the task ends cancelled (Temporal CANCELED);
//   - a failure, or a cancellation nobody requested (a context the tool cancelled): every step is
//     undone, the task ends failed (the latter as ToolCancellation);
//   - the claim guard (memo mcpTask.claimWithinMs, claim.go) fired: every step is undone, the
//     task ends failed as McpTaskUnclaimed, also with a cancel requested after it fired;
//   - an undo that fails turns any of these into failed, -32603 naming each step not undone;
//   - a panic (a bug) is no end: the workflow task fails and is retried, nothing is undone;
//   - continue-as-new undoes nothing: the steps go along in the carry.
func Run[T any](ctx workflow.Context, t *Task, body func(workflow.Context) (T, error)) (T, error) {
	result, err := body(t.guardBody(ctx))
	unclaimed := t.settleClaimGuard()
	var continued *workflow.ContinueAsNewError
	if errors.As(err, &continued) && !t.cancelRequested() && !unclaimed {
		return result, err
	}
	if err == nil && !t.cancelRequested() && !unclaimed {
		t.recordStatus("completed")
		return result, nil
	}
	var zero T
	return zero, t.end(err)
}

// end is the one place a task's end is decided: McpTaskStatus and the error returned (which
// sets Temporal's close status) both come from it.
func (t *Task) end(err error) error {
	unclaimed := t.claimGuardFired()
	cancelled := t.cancelRequested() && !unclaimed
	why := ""
	if unclaimed {
		why = t.unclaimedMessage()
	}
	if failed := t.compensate(t.ctx, why); failed != nil {
		t.recordStatus("failed")
		return failed
	}
	if unclaimed { // not a CanceledError: Go would close it CANCELED
		t.recordStatus("failed")
		return t.unclaimed()
	}
	if cancelled {
		t.recordStatus("cancelled")
		if temporal.IsCanceledError(err) {
			return err // with a cancel requested, Temporal records CANCELED
		}
		return temporal.NewCanceledError()
	}
	t.recordStatus("failed")
	// Go closes CANCELED for any error wrapping a CanceledError: an unrequested one must not
	if temporal.IsCanceledError(err) {
		return toolCancellation(err)
	}
	return err
}

// reason is a failed undo's own message: an ActivityError names ids and the worker's identity.
func reason(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Message()
	}
	var timeout *temporal.TimeoutError
	if errors.As(err, &timeout) {
		return timeout.Error()
	}
	return err.Error()
}

func hasType(err error, errType string) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && app.Type() == errType
}
