package mcptasks.example;

import io.temporal.activity.ActivityCancellationType;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/** How the example workflows run their steps. */
final class Steps {
  private Steps() {}

  /**
   * A step that heartbeats: a cancel reaches it, and the workflow waits for it to settle so its undo
   * never runs before it. Three attempts: a worker that dies mid-step (its heartbeats stop) hands the
   * step to another; the step's own failure is non-retryable and fails the task.
   */
  static ExampleActivities activities() {
    return Workflow.newActivityStub(
        ExampleActivities.class,
        ActivityOptions.newBuilder()
            .setStartToCloseTimeout(Duration.ofMinutes(10))
            .setHeartbeatTimeout(Duration.ofSeconds(1))
            .setCancellationType(ActivityCancellationType.WAIT_CANCELLATION_COMPLETED)
            .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(3).build())
            .build());
  }
}
