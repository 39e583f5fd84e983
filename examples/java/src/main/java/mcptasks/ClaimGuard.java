package mcptasks;

import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The claim guard (docs/contract.md): a run whose caller gets its handle only after a bounded wait
 * (a call from a client without Tasks) is unreachable if its server dies during that wait, as
 * nobody holds the taskId. The server starts such runs with claimWithinMs in the memo mcpTask and
 * signals mcp.claimed before it answers with the handle. Unclaimed past the deadline, the guard
 * cancels the tool's scope, every step is undone and the task ends failed with McpTaskUnclaimed.
 * The deadline is absolute: an unclaimed chain carries it through continue-as-new (claimDeadline).
 */
final class ClaimGuard {
  /** Gates the guard: runs started before it replay without it. */
  static final String CHANGE_ID = "mcp-tasks.claim-guard";

  private final CancellationScope root; // the workflow's: cancelled exactly when tasks/cancel arrived
  private final long withinMs;
  private final long deadline; // workflow time, ms since the epoch
  private boolean claimed;
  private boolean fired; // the deadline passed unclaimed and the guard cancelled the tool
  private boolean settled; // the body ended: its end is decided from what it did
  private CancellationScope tool;

  private ClaimGuard(CancellationScope root, long withinMs, long deadline) {
    this.root = root;
    this.withinMs = withinMs;
    this.deadline = deadline;
  }

  /**
   * Arms the guard on a run of a task that asks for it: the first run, or a continued run of an
   * unclaimed chain (carried: its claimDeadline); a continued run without one was claimed. Null: no guard.
   */
  static ClaimGuard arm(CancellationScope root, Map<String, Object> taskMemo, boolean firstRun, Object carried) {
    if (!(taskMemo.get("claimWithinMs") instanceof Number within)) return null;
    if (!firstRun && !(carried instanceof Number)) return null;
    if (Workflow.getVersion(CHANGE_ID, Workflow.DEFAULT_VERSION, 1) == Workflow.DEFAULT_VERSION) return null;
    long deadline = carried instanceof Number d ? d.longValue() : Workflow.currentTimeMillis() + within.longValue();
    ClaimGuard g = new ClaimGuard(root, within.longValue(), deadline);
    // detached: a cancel Temporal delivers must not end the wait, the guard then stands aside
    Workflow.newDetachedCancellationScope(() -> Async.procedure(g::watch)).run();
    return g;
  }

  private void watch() {
    long left = deadline - Workflow.currentTimeMillis();
    if (left > 0 && Workflow.await(Duration.ofMillis(left), () -> claimed)) return;
    // a cancel Temporal delivered first is the task's end: the guard does not take it over
    if (claimed || settled || root.isCancelRequested()) return;
    fired = true;
    if (tool != null) tool.cancel(message());
  }

  /** mcp.claimed: the handle reached its caller. */
  void claim() {
    claimed = true;
  }

  /** Runs the body in a scope the guard can cancel; when it ends, the guard stands down. */
  <T> T guard(Supplier<T> body) {
    List<T> result = new ArrayList<>(1);
    tool = Workflow.newCancellationScope(() -> {
      result.add(body.get());
    });
    if (fired) tool.cancel(message()); // it fired before run (the workflow waited between new McpTask and run)
    try {
      tool.run();
    } finally {
      settled = true;
    }
    return result.get(0);
  }

  /** The guard ended the task: nobody claimed it in time. */
  boolean fired() {
    return fired;
  }

  /** What a continue-as-new hands on: the deadline of a guard still waiting for its claim, or null. */
  Long unclaimedDeadline() {
    return claimed || fired ? null : deadline;
  }

  String message() {
    return "nobody claimed the task within " + withinMs + "ms (its caller never got the handle)";
  }

  /** The failure an unclaimed task ends with, after its undos ran. */
  ApplicationFailure failure() {
    return ApplicationFailure.newNonRetryableFailure(message() + ": steps undone", Contract.UNCLAIMED);
  }
}
