package mcptasks.example;

import io.temporal.workflow.Workflow;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import mcptasks.McpTask;
import mcptasks.Undo;

public final class ProvisionWorkflowImpl implements ProvisionWorkflow {
  @Override
  public Map<String, Object> run(Map<String, Object> args, Map<String, Object> carry) {
    McpTask task = new McpTask(carry);
    return task.run(() -> provision(task, args));
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> provision(McpTask task, Map<String, Object> args) {
    String taskId = Workflow.getInfo().getWorkflowId();
    String name = (String) args.get("name");
    int steps = ((Number) args.getOrDefault("steps", 3)).intValue();
    double seconds = ((Number) args.getOrDefault("stepSeconds", 1.0)).doubleValue();
    int failStep = ((Number) args.getOrDefault("failStep", 0)).intValue();
    List<Number> refuse = (List<Number>) args.getOrDefault("refuseUndo", List.of());
    int perRun = ((Number) args.getOrDefault("stepsPerRun", 0)).intValue();
    int done = ((Number) args.getOrDefault("done", 0)).intValue(); // steps of earlier runs (set by the workflow)
    ExampleActivities activities = Steps.activities();
    for (int step = done + 1; step <= steps; step++) {
      if (perRun > 0 && step > done + perRun) {
        Map<String, Object> next = new LinkedHashMap<>(args);
        next.put("done", step - 1);
        task.continueAsNew(next);
      }
      int current = step;
      task.setStatusMessage("step " + step + "/" + steps + ": provisioning " + name);
      boolean refused = refuse.stream().anyMatch(n -> n.intValue() == current);
      task.step(new Undo("DeprovisionStep", List.of(taskId, step, refused), "step " + step + " of " + name), () -> {
        activities.provisionStep(taskId, current, seconds, current == failStep);
        return null;
      });
    }
    return Map.of("name", name, "steps", steps);
  }
}
