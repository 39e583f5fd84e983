package mcptasks

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// claimGuardChange gates the claim guard: runs started before it replay without it.
const claimGuardChange = "mcp-tasks.claim-guard"

// claimGuard: a run whose caller gets its handle only after a bounded wait (a call from a client
// without Tasks) is unreachable if its server dies during that wait, as nobody holds the taskId.
// The server starts such runs with claimWithinMs in the memo mcpTask and signals mcp.claimed
// before it answers with the handle. Unclaimed past the deadline, the guard cancels the body's
// context, every step is undone and the task ends failed with McpTaskUnclaimed. The deadline is
// absolute: an unclaimed chain carries it through continue-as-new (Carry.ClaimDeadline).
type claimGuard struct {
	withinMs int64
	deadline time.Time
	claimed  bool
	fired    bool // the deadline passed unclaimed and the guard cancelled the body
	settled  bool // the body returned: its end is decided from what it did
	cancel   workflow.CancelFunc
}

// armClaimGuard arms the guard on a run of a task that asks for it: the first run, or a
// continued run of an unclaimed chain (carried != 0); a continued run without one was claimed.
func (t *Task) armClaimGuard(ctx workflow.Context, carried int64) {
	within, ok := t.taskMemo()["claimWithinMs"].(float64)
	firstRun := workflow.GetInfo(ctx).ContinuedExecutionRunID == ""
	if !ok || (carried == 0 && !firstRun) {
		return
	}
	if workflow.GetVersion(ctx, claimGuardChange, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return
	}
	g := &claimGuard{withinMs: int64(within), deadline: workflow.Now(ctx).Add(time.Duration(within * float64(time.Millisecond)))}
	if carried != 0 {
		g.deadline = time.UnixMilli(carried)
	}
	t.claim = g
	// a cancel Temporal delivers must not stop the guard's wait: the guard then stands aside
	shielded, _ := workflow.NewDisconnectedContext(ctx)
	claims := workflow.GetSignalChannel(ctx, ClaimedSignal)
	workflow.Go(shielded, func(gctx workflow.Context) {
		for {
			claims.Receive(gctx, nil) // every claim is taken: the server may send more than one
			g.claimed = true
		}
	})
	workflow.Go(shielded, func(gctx workflow.Context) {
		if left := g.deadline.Sub(workflow.Now(gctx)); left > 0 {
			options := workflow.AwaitOptions{Timeout: left, TimerOptions: workflow.TimerOptions{Summary: "claim guard"}}
			if claimed, _ := workflow.AwaitWithOptions(gctx, options, func() bool { return g.claimed }); claimed {
				return
			}
		}
		// a cancel Temporal delivered first is the task's end: the guard does not take it over
		if g.claimed || g.settled || t.cancelRequested() {
			return
		}
		g.fired = true
		if g.cancel != nil {
			g.cancel()
		}
	})
}

// guardBody is the context Run gives the body: one the claim guard can cancel.
func (t *Task) guardBody(ctx workflow.Context) workflow.Context {
	if t.claim == nil {
		return ctx
	}
	ctx, t.claim.cancel = workflow.WithCancel(ctx)
	if t.claim.fired { // it fired before Run (the workflow waited between New and Run)
		t.claim.cancel()
	}
	return ctx
}

// settleClaimGuard: the body returned, the guard stands down and says whether it had fired.
func (t *Task) settleClaimGuard() (fired bool) {
	if t.claim == nil {
		return false
	}
	t.claim.settled = true
	return t.claim.fired
}

func (t *Task) claimGuardFired() bool {
	return t.claim != nil && t.claim.fired
}

// unclaimedDeadline is what a continue-as-new hands on: the deadline of a guard still waiting.
func (t *Task) unclaimedDeadline() int64 {
	if g := t.claim; g != nil && !g.claimed && !g.fired {
		return g.deadline.UnixMilli()
	}
	return 0
}

func (t *Task) unclaimedMessage() string {
	return fmt.Sprintf("nobody claimed the task within %dms (its caller never got the handle)", t.claim.withinMs)
}

// unclaimed is the failure an unclaimed task ends with, after its undos ran.
func (t *Task) unclaimed() error {
	return temporal.NewNonRetryableApplicationError(t.unclaimedMessage()+": steps undone", UnclaimedType, nil)
}
