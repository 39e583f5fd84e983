package mcptasks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Java helper against Temporal's in-memory test server (time skipping). */
class McpTaskTest extends HelperEnvironment {
  private static final String QUEUE = "helper";

  McpTaskTest() {
    super(QUEUE);
  }

  private WorkflowStub start(String mode, Map<String, Object> memo) {
    WorkflowOptions.Builder options = WorkflowOptions.newBuilder().setTaskQueue(QUEUE).setWorkflowId("task_" + mode + System.nanoTime());
    if (memo != null) options.setMemo(memo);
    WorkflowStub stub = env.getWorkflowClient().newUntypedWorkflowStub("helperWorkflow", options.build());
    stub.start(mode, null);
    return stub;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> progress(WorkflowStub stub) {
    return stub.query(Contract.TASK_PROGRESS_QUERY, Map.class);
  }

  private static Throwable failure(WorkflowStub stub) {
    return assertThrows(WorkflowFailedException.class, () -> stub.getResult(Map.class)).getCause();
  }

  @Test
  void partialAnswersAreKeptAndOnlyOutstandingKeysTaken() {
    WorkflowStub stub = start("ask", null);
    env.sleep(Duration.ofSeconds(1));
    stub.signal(Contract.INPUT_RESPONSES_SIGNAL, Map.of("a", "yes", "never-asked", 1));
    env.sleep(Duration.ofSeconds(1));
    Map<String, Object> during = progress(stub);
    assertEquals("input_required", during.get("status"));
    assertEquals(List.of("b"), List.copyOf(((Map<?, ?>) during.get("inputRequests")).keySet().stream().map(String::valueOf).toList()));
    stub.signal(Contract.INPUT_RESPONSES_SIGNAL, List.of("not", "an", "object"));
    stub.signal(Contract.INPUT_RESPONSES_SIGNAL, Map.of("b", "no", "a", "again"));
    assertEquals(Map.of("a", "yes", "b", "no"), stub.getResult(Map.class));
    assertEquals("working", progress(stub).get("status"));
    assertEquals(List.of("do one", "do two"), effects);
  }

  @Test
  void cancelUndoesEveryStepNewestFirstAndEndsCancelled() {
    WorkflowStub stub = start("ask", null);
    env.sleep(Duration.ofSeconds(1));
    stub.cancel();
    assertThrows(WorkflowFailedException.class, () -> stub.getResult(Map.class)); // CANCELED reads as a failure here
    assertEquals(List.of("do one", "do two", "undo two", "undo one"), effects);
    assertEquals(Map.of(), progress(stub).get("inputRequests"));
  }

  @Test
  void aFailureUndoesEveryStepAndUndoFailuresAreNamed() {
    refuse = "one";
    WorkflowStub stub = start("fail", null);
    ApplicationFailure failure = assertInstanceOf(ApplicationFailure.class, failure(stub));
    assertEquals(Contract.PROTOCOL_ERROR, failure.getType());
    assertEquals("1 step(s) could not be undone: one (one is locked)", failure.getOriginalMessage());
    assertEquals(List.of("do one", "do two", "undo two"), effects);
    assertEquals("could not undo: one", progress(stub).get("statusMessage"));
  }

  @Test
  void aCancellationNobodyRequestedFailsTheTaskAsToolCancellation() {
    WorkflowStub stub = start("inner", null);
    ApplicationFailure failure = assertInstanceOf(ApplicationFailure.class, failure(stub));
    assertEquals(Contract.TOOL_CANCELLATION, failure.getType());
    assertEquals(List.of("do one", "do two", "undo two", "undo one"), effects);
  }

  @Test
  void anInputTimeoutIsOneDeadlineAndWithdrawsTheRest() {
    WorkflowStub stub = start("timeout", null);
    env.sleep(Duration.ofSeconds(30));
    stub.signal(Contract.INPUT_RESPONSES_SIGNAL, Map.of("a", "yes"));
    env.sleep(Duration.ofSeconds(40)); // 70 s after the question: past the one deadline, before a restarted one
    assertEquals(Map.of(), progress(stub).get("inputRequests"));
    ApplicationFailure failure = assertInstanceOf(ApplicationFailure.class, failure(stub));
    assertEquals(Contract.INPUT_TIMEOUT, failure.getType());
    assertEquals("no answer for b in time", failure.getOriginalMessage());
    assertEquals(List.of("do one", "do two", "undo two", "undo one"), effects);
  }

  @Test
  void theServersAnswerLimitEndsAWaitWithoutATimeout() {
    WorkflowStub stub = start("ask", Map.of(Contract.TASK_MEMO_KEY, Map.of("tool", "t", "answerWithinMs", 5000)));
    ApplicationFailure failure = assertInstanceOf(ApplicationFailure.class, failure(stub));
    assertEquals(Contract.UNANSWERED, failure.getType());
    assertEquals("nobody answered a, b within 5000 ms: the task ends, as nobody is left to answer it", failure.getOriginalMessage());
  }

  @Test
  void continueAsNewUndoesNothingAndACancelInTheNextRunUndoesBothRuns() {
    WorkflowStub stub = start("continue", null);
    env.sleep(Duration.ofSeconds(5)); // the second run asks
    WorkflowStub latest = env.getWorkflowClient().newUntypedWorkflowStub(stub.getExecution().getWorkflowId());
    assertEquals("input_required", progress(latest).get("status"));
    assertEquals(List.of("do one", "do two", "do one", "do two"), effects);
    latest.cancel();
    assertThrows(WorkflowFailedException.class, () -> latest.getResult(Map.class));
    assertEquals(List.of("do one", "do two", "do one", "do two", "undo two", "undo one", "undo two", "undo one"), effects);
  }

  @Test
  void aCancellationIsRecognisedThroughItsCauses() {
    assertTrue(Contract.isCancellation(new RuntimeException("wrapped", new CanceledFailure("x"))));
    assertTrue(!Contract.isCancellation(ApplicationFailure.newFailure("no", "Other")));
  }
}
