// Package tools holds the example workflows exposed as MCP task tools by examples/go/tools.json,
// and their activities. Both follow the contract through the mcptasks helper.
package tools

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/mcp-temporal-tasks/examples/go/mcptasks"
)

// TaskQueue is the queue the Go worker polls (tools.json's taskQueue).
const TaskQueue = "go-tools"

// Workflows are the example workflows by the type names tools.json starts them with: the worker
// registers them so, and so does the replay test (a recorded history names its type).
var Workflows = map[string]any{"ApproveDeploymentWorkflow": ApproveDeployment, "ProvisionWorkflow": Provision}

var approvalSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"approved": map[string]any{"type": "boolean"},
		"comment":  map[string]any{"type": "string"},
	},
	"required": []any{"approved"},
}

// A step that heartbeats: a cancel reaches it, and the workflow waits for it to settle so its undo
// never runs before it. Three attempts: a worker that dies mid-step (its heartbeats stop) hands
// the step to another; the step's own failure is non-retryable and fails the task.
func watched(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		HeartbeatTimeout:    time.Second,
		WaitForCancellation: true,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	})
}

type DeployArgs struct {
	Service                string  `json:"service"`
	Version                string  `json:"version"`
	ApprovalTimeoutSeconds float64 `json:"approvalTimeoutSeconds"`
	WatchSeconds           float64 `json:"watchSeconds"`
}

type DeployResult struct {
	Service     string `json:"service"`
	Version     string `json:"version"`
	Deployed    bool   `json:"deployed"`
	Reservation string `json:"reservation"`
	Comment     string `json:"comment"`
}

// ApproveDeployment reserves a slot, asks for approval (a form elicitation, timed if asked),
// deploys and watches the rollout; a cancel, a failure or a refusal releases the slot, and a
// cancel while it watches undeploys first. Returns a CallToolResult with isError when refused.
func ApproveDeployment(ctx workflow.Context, args DeployArgs, carry mcptasks.Carry) (any, error) {
	task, err := mcptasks.New(ctx, carry)
	if err != nil {
		return nil, err
	}
	return mcptasks.Run(ctx, task, func(ctx workflow.Context) (any, error) {
		taskID := workflow.GetInfo(ctx).WorkflowExecution.ID
		ctx = watched(ctx)
		task.SetStatusMessage("reserving a deployment slot for " + args.Service)
		var reservation string
		err := task.Step(ctx, mcptasks.Undo{Activity: "ReleaseSlot", Args: []any{taskID, args.Service}, Step: "reserve a slot for " + args.Service},
			func(ctx workflow.Context) error {
				return workflow.ExecuteActivity(ctx, ReserveSlot, taskID, args.Service).Get(ctx, &reservation)
			})
		if err != nil {
			return nil, err
		}
		task.SetStatusMessage(fmt.Sprintf("waiting for approval to deploy %s %s", args.Service, args.Version))
		timeout := time.Duration(args.ApprovalTimeoutSeconds * float64(time.Second))
		answer, err := task.Elicit(ctx, "approval", fmt.Sprintf("Deploy %s %s?", args.Service, args.Version), approvalSchema, timeout)
		if err != nil {
			return nil, err
		}
		content, _ := answer["content"].(map[string]any)
		if approved, _ := content["approved"].(bool); answer["action"] != "accept" || !approved {
			if err := task.Compensate(ctx); err != nil { // nothing to deploy: give the slot back now
				return nil, err
			}
			why := "rejected"
			if answer["action"] != "accept" {
				why = fmt.Sprintf("answered %v", answer["action"])
			}
			text := fmt.Sprintf("Deployment of %s %s was not approved (%s)", args.Service, args.Version, why)
			return map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "isError": true}, nil
		}
		task.SetStatusMessage(fmt.Sprintf("deploying %s %s", args.Service, args.Version))
		err = task.Step(ctx, mcptasks.Undo{Activity: "Undeploy", Args: []any{taskID, args.Service, args.Version}, Step: fmt.Sprintf("deploy %s %s", args.Service, args.Version)},
			func(ctx workflow.Context) error {
				return workflow.ExecuteActivity(ctx, Deploy, taskID, args.Service, args.Version, args.WatchSeconds).Get(ctx, nil)
			})
		if err != nil {
			return nil, err
		}
		comment, _ := content["comment"].(string)
		return DeployResult{Service: args.Service, Version: args.Version, Deployed: true, Reservation: reservation, Comment: comment}, nil
	})
}

type ProvisionArgs struct {
	Name        string   `json:"name"`
	Steps       int      `json:"steps"`
	StepSeconds *float64 `json:"stepSeconds"`
	FailStep    int      `json:"failStep"`
	RefuseUndo  []int    `json:"refuseUndo"`
	StepsPerRun int      `json:"stepsPerRun"` // continue as new after this many steps (0: never)
	Done        int      `json:"done"`        // steps done by earlier runs (set by the workflow)
}

// Provision provisions an environment in steps, each with its undo: a cancel or a failure undoes
// every step done or in flight, newest first, also those of earlier runs of a continue-as-new.
func Provision(ctx workflow.Context, args ProvisionArgs, carry mcptasks.Carry) (any, error) {
	task, err := mcptasks.New(ctx, carry)
	if err != nil {
		return nil, err
	}
	if args.Steps == 0 {
		args.Steps = 3
	}
	seconds := 1.0
	if args.StepSeconds != nil {
		seconds = *args.StepSeconds
	}
	return mcptasks.Run(ctx, task, func(ctx workflow.Context) (any, error) {
		taskID := workflow.GetInfo(ctx).WorkflowExecution.ID
		ctx = watched(ctx)
		for step := args.Done + 1; step <= args.Steps; step++ {
			if args.StepsPerRun > 0 && step > args.Done+args.StepsPerRun {
				next := args
				next.Done = step - 1
				return nil, task.ContinueAsNew(ctx, "ProvisionWorkflow", next)
			}
			task.SetStatusMessage(fmt.Sprintf("step %d/%d: provisioning %s", step, args.Steps, args.Name))
			undo := mcptasks.Undo{Activity: "DeprovisionStep", Args: []any{taskID, step, contains(args.RefuseUndo, step)}, Step: fmt.Sprintf("step %d of %s", step, args.Name)}
			err := task.Step(ctx, undo, func(ctx workflow.Context) error {
				return workflow.ExecuteActivity(ctx, ProvisionStep, taskID, step, seconds, step == args.FailStep).Get(ctx, nil)
			})
			if err != nil {
				return nil, err
			}
		}
		return map[string]any{"name": args.Name, "steps": args.Steps}, nil
	})
}

func contains(values []int, v int) bool {
	for _, x := range values {
		if x == v {
			return true
		}
	}
	return false
}
