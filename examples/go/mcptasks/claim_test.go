package mcptasks

import (
	"errors"
	"testing"
	"time"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

const unclaimedIn5s = "nobody claimed the task within 5000ms (its caller never got the handle)"

// claimEnv is newEnv for a task the server started with claimWithinMs in its memo.
func claimEnv(t *testing.T, refuse string, withinMs int) (*testsuite.TestWorkflowEnvironment, *effects) {
	env, log := newEnv(t, refuse)
	if err := env.SetMemoOnStart(map[string]any{TaskMemoKey: map[string]any{"tool": "t", "claimWithinMs": withinMs}}); err != nil {
		t.Fatal(err)
	}
	return env, log
}

func claim(env *testsuite.TestWorkflowEnvironment) { env.SignalWorkflow(ClaimedSignal, nil) }

func continuedWith(t *testing.T, err error) Carry {
	t.Helper()
	var continued *workflow.ContinueAsNewError
	if !errors.As(err, &continued) {
		t.Fatalf("want a continue-as-new, got %v", err)
	}
	var mode string
	var carry Carry
	if err := converter.GetDefaultDataConverter().FromPayloads(continued.Input, &mode, &carry); err != nil {
		t.Fatal(err)
	}
	return carry
}

func TestAClaimedTaskRunsToItsEnd(t *testing.T) {
	env, log := claimEnv(t, "", 5000)
	env.RegisterDelayedCallback(func() { claim(env) }, time.Second)
	env.RegisterDelayedCallback(func() { claim(env) }, 2*time.Second) // a second claim changes nothing
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(InputResponsesSignal, map[string]any{"a": 1, "b": 2}) }, 10*time.Second)
	env.ExecuteWorkflow("helperWorkflow", "ask", Carry{})
	var answers map[string]any
	if err := env.GetWorkflowResult(&answers); err != nil {
		t.Fatal(err)
	}
	if len(answers) != 2 || log.list() != "do one, do two" {
		t.Fatalf("answers %v, effects %s", answers, log.list())
	}
}

func TestAnUnclaimedTaskUndoesEveryStepAndFailsAsUnclaimed(t *testing.T) {
	env, log := claimEnv(t, "", 5000)
	start := env.Now()
	env.ExecuteWorkflow("helperWorkflow", "ask", Carry{})
	err := env.GetWorkflowError()
	app := appError(t, err, UnclaimedType)
	if app.Message() != unclaimedIn5s+": steps undone" || !app.NonRetryable() {
		t.Fatalf("message %q, non-retryable %v", app.Message(), app.NonRetryable())
	}
	if temporal.IsCanceledError(err) { // Go would close it CANCELED
		t.Fatalf("the failure must not wrap a CanceledError: %v", err)
	}
	if waited := env.Now().Sub(start); waited < 5*time.Second || waited > 6*time.Second {
		t.Fatalf("ended after %s, not at the deadline", waited)
	}
	if log.list() != "do one, do two, undo two, undo one" {
		t.Fatalf("effects %s", log.list())
	}
	if p := progressOf(t, env); len(p.InputRequests) != 0 {
		t.Fatalf("the questions are not withdrawn: %+v", p)
	}
}

func TestAnUnclaimedTaskWhoseUndoFailsEndsWithTheUndoFailure(t *testing.T) {
	env, log := claimEnv(t, "one", 5000)
	env.ExecuteWorkflow("helperWorkflow", "ask", Carry{})
	app := appError(t, env.GetWorkflowError(), ProtocolErrorType)
	if app.Message() != "1 step(s) could not be undone after "+unclaimedIn5s+": one (one is locked)" {
		t.Fatalf("message %q", app.Message())
	}
	if log.list() != "do one, do two, undo two" {
		t.Fatalf("effects %s", log.list())
	}
}

func TestACancelBeforeTheClaimDeadlineEndsTheTaskCancelled(t *testing.T) {
	env, log := claimEnv(t, "", 5000)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Second)
	env.ExecuteWorkflow("helperWorkflow", "ask", Carry{})
	if err := env.GetWorkflowError(); !temporal.IsCanceledError(err) {
		t.Fatalf("want a cancellation, got %v", err)
	}
	if log.list() != "do one, do two, undo two, undo one" {
		t.Fatalf("effects %s", log.list())
	}
}

func TestTheClaimGuardFiresDuringAWaitOfTheTool(t *testing.T) {
	env, _ := claimEnv(t, "", 5000)
	env.ExecuteWorkflow("helperWorkflow", "later", Carry{}) // sleeps 10 s, then would continue as new
	appError(t, env.GetWorkflowError(), UnclaimedType)
}

func TestAClaimedChainCarriesNoDeadline(t *testing.T) {
	env, _ := claimEnv(t, "", 5000)
	env.RegisterDelayedCallback(func() { claim(env) }, time.Second)
	env.ExecuteWorkflow("helperWorkflow", "later", Carry{})
	if carry := continuedWith(t, env.GetWorkflowError()); carry.ClaimDeadline != 0 {
		t.Fatalf("a claimed run carried the deadline %d", carry.ClaimDeadline)
	}
}

func TestTheClaimDeadlineHoldsAcrossContinueAsNew(t *testing.T) {
	env, _ := claimEnv(t, "", 5000)
	start := env.Now()
	env.ExecuteWorkflow("helperWorkflow", "continue", Carry{})
	carry := continuedWith(t, env.GetWorkflowError())
	if want := start.Add(5 * time.Second).UnixMilli(); carry.ClaimDeadline != want {
		t.Fatalf("carried the deadline %d, want %d", carry.ClaimDeadline, want)
	}
	// the next run ends at the carried moment, not claimWithinMs after its own start
	next, log := claimEnv(t, "", 5000)
	begun := next.Now()
	next.ExecuteWorkflow("helperWorkflow", "ask", Carry{Undos: carry.Undos, ClaimDeadline: begun.Add(2 * time.Second).UnixMilli()})
	appError(t, next.GetWorkflowError(), UnclaimedType)
	if waited := next.Now().Sub(begun); waited > 3*time.Second {
		t.Fatalf("the continued run ended after %s", waited)
	}
	if log.list() != "do one, do two, undo two, undo one, undo two, undo one" {
		t.Fatalf("effects %s", log.list())
	}
}

func TestARunStartedBeforeTheClaimGuardReplaysWithoutIt(t *testing.T) {
	env, log := claimEnv(t, "", 5000)
	env.OnGetVersion(claimGuardChange, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(InputResponsesSignal, map[string]any{"a": 1, "b": 2}) }, 10*time.Second)
	env.ExecuteWorkflow("helperWorkflow", "ask", Carry{})
	if err := env.GetWorkflowError(); err != nil || log.list() != "do one, do two" {
		t.Fatalf("err %v, effects %s", err, log.list())
	}
}
