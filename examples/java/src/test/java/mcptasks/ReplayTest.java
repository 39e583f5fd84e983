package mcptasks;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import mcptasks.example.ApproveDeploymentWorkflowImpl;
import mcptasks.example.ProvisionWorkflowImpl;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every recorded history of the example tools (src/test/resources/histories, recorded by
 * `npm run record-helper-histories -- --lang java`) replays with the current helper and
 * workflows: a change to their command sequence that no Workflow.getVersion gates fails here with
 * a nondeterminism error.
 * `.v0` files are runs of the helper before the claim guard, `.v1` with it.
 */
class ReplayTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DataConverter CONVERTER = DefaultDataConverter.STANDARD_INSTANCE;
  private static TestWorkflowEnvironment env;
  private static Worker worker;

  @BeforeAll
  static void start() {
    env = TestWorkflowEnvironment.newInstance();
    worker = env.newWorker("replay");
    worker.registerWorkflowImplementationTypes(ApproveDeploymentWorkflowImpl.class, ProvisionWorkflowImpl.class);
  }

  @AfterAll
  static void stop() {
    env.close();
  }

  static Stream<String> histories() throws IOException, URISyntaxException {
    try (Stream<Path> files = Files.list(folder())) {
      return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".json")).sorted().toList().stream();
    }
  }

  private static Path folder() throws URISyntaxException {
    return Path.of(ReplayTest.class.getResource("/histories").toURI());
  }

  /** The history under its recorded workflow id (Workflow.getInfo() as it ran); a file without one under a default. */
  private static WorkflowExecutionHistory load(String file) throws IOException, URISyntaxException {
    String json = Files.readString(folder().resolve(file));
    JsonNode id = JSON.readTree(json).get("workflowId");
    return id == null ? WorkflowExecutionHistory.fromJson(json) : WorkflowExecutionHistory.fromJson(json, id.asText());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("histories")
  void replays(String file) throws IOException, URISyntaxException {
    WorkflowExecutionHistory history = load(file);
    assertFalse(history.getEvents().isEmpty(), file + " has no events");
    assertDoesNotThrow(() -> WorkflowReplayer.replayWorkflowExecution(history, worker), file + " does not replay");
  }

  /** The gate's both sides stay recorded: a run with claimWithinMs from before the guard (no marker) and one with it. */
  @Test
  void theClaimGuardIsRecordedWithAndWithoutItsVersionMarker() throws Exception {
    Set<Boolean> guarded = new HashSet<>();
    for (String file : histories().toList()) {
      List<HistoryEvent> events = load(file).getEvents();
      Payload memo = events.get(0).getWorkflowExecutionStartedEventAttributes().getMemo().getFieldsMap().get(Contract.TASK_MEMO_KEY);
      if (memo != null && CONVERTER.fromPayload(memo, Map.class, Map.class).containsKey("claimWithinMs")) guarded.add(hasGuardMarker(events));
    }
    assertEquals(Set.of(false, true), guarded);
  }

  private static boolean hasGuardMarker(List<HistoryEvent> events) {
    return events.stream()
        .filter(HistoryEvent::hasMarkerRecordedEventAttributes)
        .map(e -> e.getMarkerRecordedEventAttributes().getDetailsMap().get("changeId")) // getVersion's marker
        .filter(Objects::nonNull)
        .anyMatch(p -> ClaimGuard.CHANGE_ID.equals(CONVERTER.fromPayloads(0, Optional.of(p), String.class, String.class)));
  }
}
