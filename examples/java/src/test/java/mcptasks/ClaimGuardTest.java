package mcptasks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Timestamp;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The claim guard (memo mcpTask.claimWithinMs) against Temporal's in-memory test server (time skipping). */
class ClaimGuardTest extends HelperEnvironment {
  private static final String QUEUE = "claim";
  private static final Map<String, Object> MEMO = Map.of(Contract.TASK_MEMO_KEY, Map.of("tool", "t", "claimWithinMs", 5000));
  private static final String UNCLAIMED = "nobody claimed the task within 5000ms (its caller never got the handle)";

  ClaimGuardTest() {
    super(QUEUE);
  }

  private WorkflowStub start(String mode) {
    WorkflowOptions options = WorkflowOptions.newBuilder()
        .setTaskQueue(QUEUE).setWorkflowId("task_" + mode + System.nanoTime()).setMemo(MEMO).build();
    WorkflowStub stub = env.getWorkflowClient().newUntypedWorkflowStub("helperWorkflow", options);
    stub.start(mode, null);
    return stub;
  }

  private static ApplicationFailure failure(WorkflowStub stub) {
    Throwable cause = assertThrows(WorkflowFailedException.class, () -> stub.getResult(Map.class)).getCause();
    return assertInstanceOf(ApplicationFailure.class, cause);
  }

  /** When the run's event at index (-1: the last) happened. */
  private long eventMillis(WorkflowStub stub, int index) {
    WorkflowExecution run = stub.getExecution();
    List<HistoryEvent> events = env.getWorkflowClient().fetchHistory(run.getWorkflowId(), run.getRunId()).getEvents();
    Timestamp time = events.get(index < 0 ? events.size() + index : index).getEventTime();
    return time.getSeconds() * 1000 + time.getNanos() / 1_000_000;
  }

  @Test
  void aTaskClaimedInTimeRunsToItsEnd() {
    WorkflowStub stub = start("ask");
    env.sleep(Duration.ofSeconds(1));
    stub.signal(Contract.CLAIMED_SIGNAL);
    env.sleep(Duration.ofSeconds(10)); // past the deadline: the guard stood down
    stub.signal(Contract.INPUT_RESPONSES_SIGNAL, Map.of("a", "yes", "b", "no"));
    assertEquals(Map.of("a", "yes", "b", "no"), stub.getResult(Map.class));
    assertEquals(List.of("do one", "do two"), effects);
  }

  @Test
  void anUnclaimedTaskUndoesEveryStepNewestFirstAndFailsAsUnclaimed() {
    ApplicationFailure failure = failure(start("ask"));
    assertEquals(Contract.UNCLAIMED, failure.getType());
    assertTrue(failure.isNonRetryable());
    assertEquals(UNCLAIMED + ": steps undone", failure.getOriginalMessage());
    assertEquals(List.of("do one", "do two", "undo two", "undo one"), effects);
  }

  @Test
  void anUndoThatFailsAfterTheGuardFiredEndsTheTaskWithTheUndoFailure() {
    refuse = "one";
    ApplicationFailure failure = failure(start("ask"));
    assertEquals(Contract.PROTOCOL_ERROR, failure.getType());
    assertEquals("1 step(s) could not be undone after " + UNCLAIMED + ": one (one is locked)", failure.getOriginalMessage());
    assertEquals(List.of("do one", "do two", "undo two"), effects);
  }

  @Test
  void anUnclaimedChainEndsAtTheFirstRunsDeadline() {
    WorkflowStub stub = start("continue-later");
    env.sleep(Duration.ofSeconds(4)); // the second run asks, 3 s after the first started
    WorkflowStub latest = env.getWorkflowClient().newUntypedWorkflowStub(stub.getExecution().getWorkflowId());
    ApplicationFailure failure = failure(latest);
    assertEquals(Contract.UNCLAIMED, failure.getType());
    long ended = eventMillis(latest, -1) - eventMillis(stub, 0); // workflow time, from the histories
    assertTrue(ended >= 5000 && ended < 8000, "ended " + ended + " ms after the start, not at its 5 s deadline");
    assertEquals(List.of("do one", "do two", "do one", "do two", "undo two", "undo one", "undo two", "undo one"), effects);
  }

  @Test
  void aCancelBeforeTheDeadlineWins() {
    WorkflowStub stub = start("ask");
    env.sleep(Duration.ofSeconds(1));
    stub.cancel();
    Throwable cause = assertThrows(WorkflowFailedException.class, () -> stub.getResult(Map.class)).getCause();
    assertInstanceOf(CanceledFailure.class, cause);
    env.sleep(Duration.ofSeconds(10));
    assertEquals(List.of("do one", "do two", "undo two", "undo one"), effects);
  }
}
