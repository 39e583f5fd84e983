package mcptasks

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"
)

// InputRequest is one question: Key is unique for the task's whole life, Request an MCP
// InputRequest as the 2026-07-28 wire carries it ({"method": "elicitation/create", "params": ...}).
type InputRequest struct {
	Key     string
	Request map[string]any
}

// RequestInputs asks all of them at once and returns key -> response once every one is
// answered (partial answers are kept meanwhile). With timeout > 0 the unanswered ones are
// withdrawn after it (one deadline for the whole question) and InputTimeout is returned; the
// server's limit (memo mcpTask.answerWithinMs) ends the wait with McpTaskUnanswered when it is
// shorter. Reusing a key is a bug: it panics (the workflow task fails and is retried).
func (t *Task) RequestInputs(ctx workflow.Context, requests []InputRequest, timeout time.Duration) (map[string]any, error) {
	asked := map[string]any{}
	for k, v := range t.progress.InputRequests {
		asked[k] = v
	}
	for _, r := range requests {
		if _, pending := asked[r.Key]; pending {
			continue // carried from the previous run: still outstanding, not asked again
		}
		if t.used[r.Key] {
			panic(fmt.Sprintf("input key %q was already used in this task", r.Key))
		}
		t.used[r.Key] = true
		asked[r.Key] = r.Request
	}
	t.publish(t.withRequests(asked))
	answers := map[string]any{}
	defer t.withdraw(requests, answers) // when the wait ends otherwise (cancelled, timed out)
	limit := t.answerLimit()
	ownFirst := limit == 0 || (timeout > 0 && timeout <= limit)
	wait := limit
	if ownFirst {
		wait = timeout
	}
	deadline := workflow.Now(ctx).Add(wait)
	for len(answers) < len(requests) {
		answered := func() bool { return t.anyAnswer(requests, answers) }
		if wait <= 0 {
			if err := workflow.Await(ctx, answered); err != nil {
				return nil, err
			}
		} else if ok, err := workflow.AwaitWithTimeout(ctx, max(0, deadline.Sub(workflow.Now(ctx))), answered); err != nil {
			return nil, err
		} else if !ok {
			t.takeAnswers(requests, answers) // an answer recorded with the timer still counts
			if left := unanswered(requests, answers); len(left) > 0 {
				if ownFirst {
					return nil, InputTimeout(left)
				}
				return nil, unansweredInput(left, limit.Milliseconds())
			}
		}
		t.takeAnswers(requests, answers)
	}
	return answers, nil
}

// Elicit asks a form elicitation and returns the client's ElicitResult {action, content?}.
// Unanswered within timeout (> 0) it is withdrawn and reads as the client's {"action": "cancel"}.
func (t *Task) Elicit(ctx workflow.Context, key, message string, schema map[string]any, timeout time.Duration) (map[string]any, error) {
	request := map[string]any{"method": "elicitation/create",
		"params": map[string]any{"mode": "form", "message": message, "requestedSchema": schema}}
	answers, err := t.RequestInputs(ctx, []InputRequest{{Key: key, Request: request}}, timeout)
	if IsInputTimeout(err) {
		return map[string]any{"action": "cancel"}, nil
	}
	if err != nil {
		return nil, err
	}
	result, _ := answers[key].(map[string]any)
	return result, nil
}

func (t *Task) anyAnswer(requests []InputRequest, answers map[string]any) bool {
	for _, r := range requests {
		if _, done := answers[r.Key]; !done {
			if _, ok := t.responses[r.Key]; ok {
				return true
			}
		}
	}
	return false
}

func (t *Task) takeAnswers(requests []InputRequest, answers map[string]any) {
	for _, r := range requests {
		if response, ok := t.responses[r.Key]; ok {
			if _, done := answers[r.Key]; !done {
				answers[r.Key] = response
				delete(t.responses, r.Key)
			}
		}
	}
	t.publish(t.withRequests(without(t.progress.InputRequests, answers)))
}

// withdraw drops the keys left unanswered, with any answer that came for them.
func (t *Task) withdraw(requests []InputRequest, answers map[string]any) {
	left := map[string]any{}
	for _, k := range unanswered(requests, answers) {
		left[k] = true
		delete(t.responses, k)
	}
	if len(left) > 0 {
		t.publish(t.withRequests(without(t.progress.InputRequests, left)))
	}
}

// answerLimit is the server's limit on an unanswered wait (memo answerWithinMs); 0: none.
func (t *Task) answerLimit() time.Duration {
	if ms, ok := t.taskMemo()["answerWithinMs"].(float64); ok && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	return 0
}

func unanswered(requests []InputRequest, answers map[string]any) []string {
	var left []string
	for _, r := range requests {
		if _, ok := answers[r.Key]; !ok {
			left = append(left, r.Key)
		}
	}
	return left
}

func without(m map[string]any, drop map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if _, gone := drop[k]; !gone {
			out[k] = v
		}
	}
	return out
}
