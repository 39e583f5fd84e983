package tools

import (
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Every recorded history (testdata/histories, `npm run record-helper-histories -- --lang go`) replays with the
// workflows as they are now: a change to the mcptasks helper or a tool that alters the commands
// of a run already in flight fails here with a nondeterminism error. Files from older helpers
// (.v0: before the claim guard) stay: such a change goes behind workflow.GetVersion.
func TestRecordedHistoriesReplay(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded histories in testdata/histories (%v)", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			replayer := worker.NewWorkflowReplayer()
			for name, fn := range Workflows {
				replayer.RegisterWorkflowWithOptions(fn, workflow.RegisterOptions{Name: name})
			}
			// reads Temporal's proto JSON (`temporal workflow show -o json`); our keys beside `events` are skipped
			if err := replayer.ReplayWorkflowHistoryFromJSONFile(nil, file); err != nil {
				t.Fatalf("%s does not replay: %v", file, err)
			}
		})
	}
}
