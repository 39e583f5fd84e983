package mcptasks;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import io.temporal.activity.ActivityCancellationType;
import io.temporal.activity.ActivityOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The helper under test: two steps with undos, then what mode says. */
@WorkflowInterface
public interface HelperWorkflow {
  Map<String, Object> FORM = Map.of("method", "elicitation/create", "params", Map.of("mode", "form", "message", "?"));

  @WorkflowMethod(name = "helperWorkflow")
  Map<String, Object> run(String mode, Map<String, Object> carry);

  @ActivityInterface
  interface Steps {
    @ActivityMethod(name = "Do")
    void doStep(String step);

    @ActivityMethod(name = "Undo")
    void undo(String step);
  }

  final class Impl implements HelperWorkflow {
    @Override
    public Map<String, Object> run(String mode, Map<String, Object> carry) {
      McpTask task = new McpTask(carry);
      return task.run(() -> body(task, mode));
    }

    private Map<String, Object> body(McpTask task, String mode) {
      Steps steps = Workflow.newActivityStub(Steps.class, ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofMinutes(1))
          .setCancellationType(ActivityCancellationType.WAIT_CANCELLATION_COMPLETED)
          .build());
      for (String step : List.of("one", "two")) {
        task.step(new Undo("Undo", List.of(step), step, 60, 1), () -> {
          steps.doStep(step);
          return null;
        });
      }
      Map<String, Map<String, Object>> questions = new LinkedHashMap<>();
      questions.put("a", FORM);
      questions.put("b", FORM);
      switch (mode) {
        case "ask":
          return task.requestInputs(questions, null);
        case "timeout":
          return task.requestInputs(questions, Duration.ofMinutes(1));
        case "inner": // the tool's own cancellation: nobody requested it
          CancellationScope scope = Workflow.newCancellationScope(() -> Workflow.sleep(Duration.ofHours(1)));
          scope.cancel();
          scope.run();
          return null;
        case "continue":
          task.continueAsNew("ask");
          return null;
        case "continue-later": // the first run takes 3 s of workflow time
          Workflow.sleep(Duration.ofSeconds(3));
          task.continueAsNew("ask");
          return null;
        default:
          throw ApplicationFailure.newFailure("the tool failed", "Boom");
      }
    }
  }
}
