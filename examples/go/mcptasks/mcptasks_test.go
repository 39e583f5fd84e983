package mcptasks

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// effects is what the test activities did, in order ("do one", "undo two", ...).
type effects struct {
	sync.Mutex
	done []string
}

func (e *effects) add(s string) {
	e.Lock()
	defer e.Unlock()
	e.done = append(e.done, s)
}

func (e *effects) list() string {
	e.Lock()
	defer e.Unlock()
	return strings.Join(e.done, ", ")
}

var form = map[string]any{"method": "elicitation/create", "params": map[string]any{"mode": "form", "message": "?"}}
var questions = []InputRequest{{Key: "a", Request: form}, {Key: "b", Request: form}}

// helperWorkflow: two steps with undos, then what mode says.
func helperWorkflow(ctx workflow.Context, mode string, carry Carry) (map[string]any, error) {
	task, err := New(ctx, carry)
	if err != nil {
		return nil, err
	}
	return Run(ctx, task, func(ctx workflow.Context) (map[string]any, error) {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute, WaitForCancellation: true})
		for _, step := range []string{"one", "two"} {
			err := task.Step(ctx, Undo{Activity: "Undo", Args: []any{step}, Step: step, MaximumAttempts: 1}, func(ctx workflow.Context) error {
				return workflow.ExecuteActivity(ctx, "Do", step).Get(ctx, nil)
			})
			if err != nil {
				return nil, err
			}
		}
		switch mode {
		case "ask":
			return task.RequestInputs(ctx, questions, 0)
		case "timeout":
			return task.RequestInputs(ctx, questions, time.Minute)
		case "inner": // the tool's own cancellation: nobody requested it
			inner, cancel := workflow.WithCancel(ctx)
			cancel()
			return nil, workflow.Sleep(inner, time.Hour)
		case "continue":
			return nil, task.ContinueAsNew(ctx, "helperWorkflow", "ask")
		case "later": // continues as new after a while
			if err := workflow.Sleep(ctx, 10*time.Second); err != nil {
				return nil, err
			}
			return nil, task.ContinueAsNew(ctx, "helperWorkflow", "ask")
		}
		return nil, temporal.NewApplicationError("the tool failed", "Boom")
	})
}

func newEnv(t *testing.T, refuse string) (*testsuite.TestWorkflowEnvironment, *effects) {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(helperWorkflow, workflow.RegisterOptions{Name: "helperWorkflow"})
	log := &effects{}
	env.RegisterActivityWithOptions(func(ctx context.Context, step string) error { log.add("do " + step); return nil },
		activity.RegisterOptions{Name: "Do"})
	env.RegisterActivityWithOptions(func(ctx context.Context, step string) error {
		if step == refuse {
			return temporal.NewNonRetryableApplicationError(step+" is locked", "Locked", nil)
		}
		log.add("undo " + step)
		return nil
	}, activity.RegisterOptions{Name: "Undo"})
	return env, log
}

func progressOf(t *testing.T, env *testsuite.TestWorkflowEnvironment) Progress {
	t.Helper()
	value, err := env.QueryWorkflow(TaskProgressQuery)
	if err != nil {
		t.Fatal(err)
	}
	var p Progress
	if err := value.Get(&p); err != nil {
		t.Fatal(err)
	}
	return p
}

func appError(t *testing.T, err error, errType string) *temporal.ApplicationError {
	t.Helper()
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || app.Type() != errType {
		t.Fatalf("want an ApplicationError of type %s, got %v", errType, err)
	}
	return app
}

func TestPartialAnswersAreKeptAndOnlyOutstandingKeysTaken(t *testing.T) {
	env, log := newEnv(t, "")
	var during Progress
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(InputResponsesSignal, map[string]any{"a": "yes", "never-asked": 1}) }, time.Second)
	env.RegisterDelayedCallback(func() { during = progressOf(t, env) }, 2*time.Second)
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(InputResponsesSignal, []string{"not", "an", "object"}) }, 3*time.Second)
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(InputResponsesSignal, map[string]any{"b": "no", "a": "again"}) }, 4*time.Second)
	env.ExecuteWorkflow("helperWorkflow", "ask", Carry{})
	var answers map[string]any
	if err := env.GetWorkflowResult(&answers); err != nil {
		t.Fatal(err)
	}
	if answers["a"] != "yes" || answers["b"] != "no" || len(answers) != 2 {
		t.Fatalf("answers %v", answers)
	}
	if during.Status != "input_required" || len(during.InputRequests) != 1 || during.InputRequests["b"] == nil {
		t.Fatalf("after a partial answer the progress is %+v", during)
	}
	if p := progressOf(t, env); p.Status != "working" || len(p.InputRequests) != 0 {
		t.Fatalf("at the end the progress is %+v", p)
	}
	if log.list() != "do one, do two" {
		t.Fatalf("effects %s", log.list())
	}
}

func TestCancelUndoesEveryStepNewestFirstAndEndsCancelled(t *testing.T) {
	env, log := newEnv(t, "")
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Second)
	env.ExecuteWorkflow("helperWorkflow", "ask", Carry{})
	if err := env.GetWorkflowError(); !temporal.IsCanceledError(err) {
		t.Fatalf("want a cancellation, got %v", err)
	}
	if log.list() != "do one, do two, undo two, undo one" {
		t.Fatalf("effects %s", log.list())
	}
	if p := progressOf(t, env); len(p.InputRequests) != 0 || p.StatusMessage != "undoing: one" {
		t.Fatalf("the questions are withdrawn and the undos said: %+v", p)
	}
}

func TestAFailureUndoesEveryStepAndUndoFailuresAreNamed(t *testing.T) {
	env, log := newEnv(t, "one")
	env.ExecuteWorkflow("helperWorkflow", "fail", Carry{})
	app := appError(t, env.GetWorkflowError(), ProtocolErrorType)
	if app.Message() != "1 step(s) could not be undone: one (one is locked)" {
		t.Fatalf("message %q", app.Message())
	}
	var details map[string]any
	if err := app.Details(&details); err != nil || details["code"] != float64(-32603) {
		t.Fatalf("details %v (%v)", details, err)
	}
	if log.list() != "do one, do two, undo two" {
		t.Fatalf("effects %s", log.list())
	}
	if p := progressOf(t, env); p.StatusMessage != "could not undo: one" {
		t.Fatalf("statusMessage %q", p.StatusMessage)
	}
}

func TestACancellationNobodyRequestedFailsTheTaskAsToolCancellation(t *testing.T) {
	env, log := newEnv(t, "")
	env.ExecuteWorkflow("helperWorkflow", "inner", Carry{})
	err := env.GetWorkflowError()
	appError(t, err, ToolCancellationType)
	if temporal.IsCanceledError(err) { // Go would close it CANCELED
		t.Fatalf("the failure must not wrap a CanceledError: %v", err)
	}
	if log.list() != "do one, do two, undo two, undo one" {
		t.Fatalf("effects %s", log.list())
	}
}

func TestAnInputTimeoutIsOneDeadlineAndWithdrawsTheRest(t *testing.T) {
	env, log := newEnv(t, "")
	start := env.Now()
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(InputResponsesSignal, map[string]any{"a": "yes"}) }, 30*time.Second)
	env.ExecuteWorkflow("helperWorkflow", "timeout", Carry{})
	app := appError(t, env.GetWorkflowError(), InputTimeoutType)
	if app.Message() != "no answer for b in time" {
		t.Fatalf("message %q", app.Message())
	}
	if waited := env.Now().Sub(start); waited >= 90*time.Second {
		t.Fatalf("the partial answer restarted the deadline: %s", waited)
	}
	if p := progressOf(t, env); len(p.InputRequests) != 0 {
		t.Fatalf("not withdrawn: %+v", p)
	}
	if log.list() != "do one, do two, undo two, undo one" {
		t.Fatalf("effects %s", log.list())
	}
}

func TestTheServersAnswerLimitEndsAWaitWithoutATimeout(t *testing.T) {
	env, _ := newEnv(t, "")
	if err := env.SetMemoOnStart(map[string]any{TaskMemoKey: map[string]any{"tool": "t", "answerWithinMs": 5000}}); err != nil {
		t.Fatal(err)
	}
	env.ExecuteWorkflow("helperWorkflow", "ask", Carry{})
	app := appError(t, env.GetWorkflowError(), UnansweredType)
	if app.Message() != "nobody answered a, b within 5000 ms: the task ends, as nobody is left to answer it" {
		t.Fatalf("message %q", app.Message())
	}
}

func TestContinueAsNewUndoesNothingAndCarriesTheUndos(t *testing.T) {
	env, log := newEnv(t, "")
	env.ExecuteWorkflow("helperWorkflow", "continue", Carry{})
	var continued *workflow.ContinueAsNewError
	if !errors.As(env.GetWorkflowError(), &continued) {
		t.Fatalf("want a continue-as-new, got %v", env.GetWorkflowError())
	}
	var mode string
	var carry Carry
	if err := converter.GetDefaultDataConverter().FromPayloads(continued.Input, &mode, &carry); err != nil {
		t.Fatal(err)
	}
	if len(carry.Undos) != 2 || carry.Undos[0].Step != "two" || carry.Undos[1].Step != "one" || mode != "ask" {
		t.Fatalf("carried %q %+v", mode, carry)
	}
	if log.list() != "do one, do two" {
		t.Fatalf("effects %s", log.list())
	}
}

func carried() Carry {
	return Carry{
		Progress:  &Progress{Status: "input_required", LastUpdatedAt: "2026-01-01T00:00:00.000Z", InputRequests: map[string]any{"a": form, "b": form}},
		Responses: map[string]any{"a": "from the last run"},
		UsedKeys:  []string{"a", "b"},
		Undos:     []Undo{{Activity: "Undo", Args: []any{"earlier"}, Step: "earlier"}},
	}
}

func TestACarriedRunKeepsPendingInputAndItsAnswers(t *testing.T) {
	env, _ := newEnv(t, "")
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(InputResponsesSignal, map[string]any{"b": "now"}) }, time.Second)
	env.ExecuteWorkflow("helperWorkflow", "ask", carried()) // asks a and b again: outstanding, not a reused key
	var answers map[string]any
	if err := env.GetWorkflowResult(&answers); err != nil {
		t.Fatal(err)
	}
	if answers["a"] != "from the last run" || answers["b"] != "now" {
		t.Fatalf("answers %v", answers)
	}
}

func TestACarriedRunUndoesTheEarlierRunsSteps(t *testing.T) {
	env, log := newEnv(t, "")
	env.ExecuteWorkflow("helperWorkflow", "fail", carried())
	appError(t, env.GetWorkflowError(), "Boom")
	if log.list() != "do one, do two, undo two, undo one, undo earlier" {
		t.Fatalf("effects %s", log.list())
	}
}

func TestReusingAnInputKeyIsABugThatFailsTheWorkflowTask(t *testing.T) {
	env, log := newEnv(t, "")
	carry := carried()
	carry.Progress = nil // a and b were asked and answered in an earlier run
	env.ExecuteWorkflow("helperWorkflow", "ask", carry)
	var panicked *temporal.PanicError
	if !errors.As(env.GetWorkflowError(), &panicked) || !strings.Contains(panicked.Error(), `input key "a" was already used in this task`) {
		t.Fatalf("want a panic naming the key, got %v", env.GetWorkflowError())
	}
	if log.list() != "do one, do two" { // a bug undoes nothing
		t.Fatalf("effects %s", log.list())
	}
}
