package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/mcp-temporal-tasks/examples/go/mcptasks"
)

// The activities of the example workflows: each appends one JSON line to the ledger file
// (LEDGER_FILE), the effects a test reads back.

var ledgerLock sync.Mutex

func ledgerPath() string {
	if path := os.Getenv("LEDGER_FILE"); path != "" {
		return path
	}
	return "ledger.jsonl"
}

func record(event, taskID string, fields map[string]any) error {
	entry := map[string]any{"event": event, "taskId": taskID}
	for k, v := range fields {
		entry[k] = v
	}
	line, err := json.Marshal(entry)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(ledgerPath(), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Write(append(line, '\n'))
	return err
}

// recorded: whether the ledger has this event for the task with these fields (compared as JSON).
func recorded(event, taskID string, fields map[string]any) bool {
	f, err := os.Open(ledgerPath())
	if err != nil {
		return false
	}
	defer f.Close()
	want, _ := json.Marshal(fields)
	var wanted map[string]any
	_ = json.Unmarshal(want, &wanted)
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		var entry map[string]any
		if json.Unmarshal(scanner.Bytes(), &entry) != nil || entry["event"] != event || entry["taskId"] != taskID {
			continue
		}
		match := true
		for k, v := range wanted {
			match = match && entry[k] == v
		}
		if match {
			return true
		}
	}
	return false
}

// recordOnce records the event unless it is there already: a retried attempt applies it once.
func recordOnce(event, taskID string, fields map[string]any, extra map[string]any) error {
	ledgerLock.Lock()
	defer ledgerLock.Unlock()
	if recorded(event, taskID, fields) {
		return nil
	}
	all := map[string]any{}
	for k, v := range fields {
		all[k] = v
	}
	for k, v := range extra {
		all[k] = v
	}
	return record(event, taskID, all)
}

// SlotName is derived, not stored: the release (registered before the reservation runs) knows it.
func SlotName(taskID, service string) string {
	return fmt.Sprintf("slot-%s-%s", service, taskID[len(taskID)-6:])
}

func ReserveSlot(ctx context.Context, taskID, service string) (string, error) {
	return SlotName(taskID, service), recordOnce("reserve", taskID, map[string]any{"service": service}, nil)
}

// ReleaseSlot is the undo of ReserveSlot: idempotent, a no-op for a slot never reserved.
func ReleaseSlot(ctx context.Context, taskID, service string) error {
	if !recorded("reserve", taskID, map[string]any{"service": service}) {
		return nil
	}
	return recordOnce("release", taskID, map[string]any{"service": service}, map[string]any{"reservation": SlotName(taskID, service)})
}

// Deploy deploys once, then watches the rollout for watchSeconds, reporting progress (a
// heartbeat: a cancel reaches the activity through one and stops the watch; the deploy stays).
func Deploy(ctx context.Context, taskID, service, version string, watchSeconds float64) error {
	if err := recordOnce("deploy", taskID, map[string]any{"service": service, "version": version}, nil); err != nil {
		return err
	}
	return work(ctx, watchSeconds, func(float64) { mcptasks.ReportProgress(ctx, "watching the rollout of "+service+" "+version, nil, nil) })
}

// Undeploy is the undo of Deploy: idempotent, a no-op for a version never deployed.
func Undeploy(ctx context.Context, taskID, service, version string) error {
	fields := map[string]any{"service": service, "version": version}
	if !recorded("deploy", taskID, fields) {
		return nil
	}
	return recordOnce("undeploy", taskID, fields, nil)
}

// ProvisionStep works for seconds reporting its progress, then applies its effect once (a retry
// after a worker died does not apply it twice); cancelled before that, it applies nothing.
func ProvisionStep(ctx context.Context, taskID string, step int, seconds float64, fail bool) error {
	total := 100.0
	err := work(ctx, seconds, func(share float64) {
		done := float64(int(share * 100))
		mcptasks.ReportProgress(ctx, fmt.Sprintf("step %d: provisioning", step), &done, &total)
	})
	if err != nil {
		return err
	}
	if fail {
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf("step %d failed", step), "StepFailed", nil)
	}
	return recordOnce("provision", taskID, map[string]any{"step": step}, nil)
}

// DeprovisionStep is the undo of ProvisionStep: a no-op (recorded as such) for a step never applied.
func DeprovisionStep(ctx context.Context, taskID string, step int, refuse bool) error {
	if refuse {
		_ = record("deprovision-refused", taskID, map[string]any{"step": step})
		return temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("step %d is locked and cannot be deprovisioned", step), "UndoRefused", nil)
	}
	applied := recorded("provision", taskID, map[string]any{"step": step})
	return recordOnce("deprovision", taskID, map[string]any{"step": step}, map[string]any{"applied": applied})
}

// work reports progress every 200 ms for seconds; a cancel (delivered with a heartbeat) ends it.
func work(ctx context.Context, seconds float64, report func(share float64)) error {
	start := time.Now()
	length := time.Duration(seconds * float64(time.Second))
	for elapsed := time.Since(start); elapsed < length; elapsed = time.Since(start) {
		report(float64(elapsed) / float64(length))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(200*time.Millisecond, length-elapsed)):
		}
	}
	return nil
}
