package mcptasks

import (
	"sort"
	"strings"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"
)

// Progress is the memo mcpProgress (docs/contract.md "Progress: memo mcpProgress").
type Progress struct {
	Status        string         `json:"status"` // input_required exactly when InputRequests is non-empty
	StatusMessage string         `json:"statusMessage,omitempty"`
	LastUpdatedAt string         `json:"lastUpdatedAt"` // the workflow's clock, ISO-8601 UTC
	InputRequests map[string]any `json:"inputRequests"` // key -> an MCP InputRequest
}

// Carry is what a run hands to the next through continue-as-new (its last argument). The
// workflow's own business: the server never reads it. The zero value starts a task afresh.
type Carry struct {
	Progress  *Progress      `json:"progress,omitempty"`
	Responses map[string]any `json:"responses,omitempty"` // answers received, not yet consumed
	UsedKeys  []string       `json:"usedKeys,omitempty"`
	Undos     []Undo         `json:"undos,omitempty"` // newest first, also those of earlier runs
	// the claim guard's deadline (ms since the epoch, workflow time) while the task is unclaimed
	ClaimDeadline int64 `json:"claimDeadline,omitempty"`
}

// Task is the contract inside one workflow run. Create it once per run, first thing, with New.
type Task struct {
	ctx       workflow.Context // the run's root context: cancelled exactly when tasks/cancel arrived
	progress  Progress
	responses map[string]any
	used      map[string]bool
	undos     []Undo
	claim     *claimGuard // nil: no claim asked, claimed in an earlier run, or a run from before the guard
}

// New starts the contract in this run: the answers signal and the progress query are handled
// from here on. ctx must be the workflow function's own context.
func New(ctx workflow.Context, carry Carry) (*Task, error) {
	t := &Task{ctx: ctx, responses: map[string]any{}, used: map[string]bool{}, undos: carry.Undos}
	if carry.Progress != nil {
		t.progress = *carry.Progress
	} else {
		t.progress = Progress{Status: "working", LastUpdatedAt: now(ctx)}
	}
	if t.progress.InputRequests == nil {
		t.progress.InputRequests = map[string]any{}
	}
	for k, v := range carry.Responses {
		t.responses[k] = v
	}
	for _, k := range carry.UsedKeys {
		t.used[k] = true
	}
	if err := workflow.SetQueryHandler(ctx, TaskProgressQuery, func() (Progress, error) { return t.progress, nil }); err != nil {
		return nil, err
	}
	// answers are taken after a cancel too (the wait they were for withdraws them)
	signals, _ := workflow.NewDisconnectedContext(ctx)
	channel := workflow.GetSignalChannel(ctx, InputResponsesSignal)
	workflow.Go(signals, func(gctx workflow.Context) {
		for {
			var responses map[string]any // a payload that is not an object fails to decode: logged and dropped by the SDK
			channel.Receive(gctx, &responses)
			t.onResponses(responses)
		}
	})
	t.armClaimGuard(ctx, carry.ClaimDeadline)
	return t, nil
}

func (t *Task) onResponses(responses map[string]any) {
	if responses == nil {
		workflow.GetLogger(t.ctx).Warn("ignored an " + InputResponsesSignal + " signal that is not an object of answers")
		return
	}
	for key, value := range responses {
		// only outstanding keys: never issued, withdrawn or already answered ones are ignored
		_, outstanding := t.progress.InputRequests[key]
		if _, taken := t.responses[key]; outstanding && !taken {
			t.responses[key] = value
		}
	}
}

// SetStatusMessage is the task's statusMessage from now on (tasks/get, the UI's current details).
func (t *Task) SetStatusMessage(message string) {
	next := t.progress
	next.StatusMessage = message
	t.publish(next)
}

// Carry is what the next run needs; ContinueAsNew passes it.
func (t *Task) Carry() Carry {
	progress := t.progress
	return Carry{Progress: &progress, Responses: t.responses, UsedKeys: sortedKeys(t.used), Undos: t.undos, ClaimDeadline: t.unclaimedDeadline()}
}

// ContinueAsNew returns the error that continues the task as new with args plus the carry; return
// it from the body. The Go SDK copies the run's memo (upserts included: mcpTask, mcpProgress) and
// search attributes into the command itself. Run ends the task cancelled instead when a cancel was
// already requested (failed, when the claim guard fired).
func (t *Task) ContinueAsNew(ctx workflow.Context, wfn any, args ...any) error {
	return workflow.NewContinueAsNewError(ctx, wfn, append(args, t.Carry())...)
}

func (t *Task) withRequests(requests map[string]any) Progress {
	next := t.progress
	next.InputRequests = requests
	return next
}

func (t *Task) publish(next Progress) {
	previous := t.progress
	next.Status = "working"
	if len(next.InputRequests) > 0 {
		next.Status = "input_required"
	}
	if next.Status == previous.Status && next.StatusMessage == previous.StatusMessage &&
		strings.Join(sortedKeys(next.InputRequests), "\n") == strings.Join(sortedKeys(previous.InputRequests), "\n") {
		return
	}
	next.LastUpdatedAt = now(t.ctx)
	t.progress = next
	if err := workflow.UpsertMemo(t.ctx, map[string]any{ProgressMemoKey: next}); err != nil {
		panic(err) // cannot happen with JSON data; a bug: the workflow task is retried
	}
	workflow.SetCurrentDetails(t.ctx, t.details())
	if next.Status != previous.Status {
		t.recordStatus(next.Status)
	}
}

// recordStatus sets McpTaskStatus, only where the server set it (the namespace has it registered).
func (t *Task) recordStatus(status string) {
	if _, ok := workflow.GetTypedSearchAttributes(t.ctx).GetKeyword(TaskStatus); ok {
		if err := workflow.UpsertTypedSearchAttributes(t.ctx, TaskStatus.ValueSet(status)); err != nil {
			panic(err)
		}
	}
}

func (t *Task) details() string {
	var lines []string
	if summary, _ := t.taskMemo()["summary"].(string); summary != "" {
		lines = append(lines, summary)
	}
	line := "**" + t.progress.Status + "**"
	if t.progress.StatusMessage != "" {
		line += ": " + t.progress.StatusMessage
	}
	lines = append(lines, line)
	if len(t.progress.InputRequests) > 0 {
		lines = append(lines, "waiting for input: "+strings.Join(sortedKeys(t.progress.InputRequests), ", "))
	}
	return strings.Join(lines, "\n\n")
}

// taskMemo is the memo mcpTask the server wrote at start (empty when absent or unreadable).
func (t *Task) taskMemo() map[string]any {
	memo := map[string]any{}
	if payload := workflow.GetInfo(t.ctx).Memo.GetFields()[TaskMemoKey]; payload != nil {
		_ = converter.GetDefaultDataConverter().FromPayload(payload, &memo)
	}
	return memo
}

func (t *Task) cancelRequested() bool {
	return t.ctx.Err() != nil
}

func now(ctx workflow.Context) string {
	return workflow.Now(ctx).UTC().Format("2006-01-02T15:04:05.000Z")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
