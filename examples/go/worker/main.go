// The Go worker of the example tools: `go run ./worker` (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
// TASK_QUEUE, LEDGER_FILE). Stops on SIGINT or SIGTERM.
package main

import (
	"fmt"
	"log"
	"os"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/mcp-temporal-tasks/examples/go/tools"
)

func env(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

func main() {
	address := env("TEMPORAL_ADDRESS", "localhost:7233")
	queue := env("TASK_QUEUE", tools.TaskQueue)
	c, err := client.Dial(client.Options{HostPort: address, Namespace: env("TEMPORAL_NAMESPACE", "default")})
	if err != nil {
		log.Fatalf("go worker: cannot reach Temporal at %s: %v", address, err)
	}
	defer c.Close()
	w := worker.New(c, queue, worker.Options{})
	for name, fn := range tools.Workflows {
		w.RegisterWorkflowWithOptions(fn, workflow.RegisterOptions{Name: name})
	}
	for name, fn := range map[string]any{
		"ReserveSlot": tools.ReserveSlot, "ReleaseSlot": tools.ReleaseSlot, "Deploy": tools.Deploy,
		"Undeploy": tools.Undeploy, "ProvisionStep": tools.ProvisionStep, "DeprovisionStep": tools.DeprovisionStep,
	} {
		w.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: name})
	}
	if err := w.Start(); err != nil {
		log.Fatalf("go worker: %v", err)
	}
	fmt.Printf("go worker polling task queue %s on %s\n", queue, address)
	<-worker.InterruptCh()
	w.Stop()
}
