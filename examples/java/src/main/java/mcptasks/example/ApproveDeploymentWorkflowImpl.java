package mcptasks.example;

import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import mcptasks.McpTask;
import mcptasks.Undo;

public final class ApproveDeploymentWorkflowImpl implements ApproveDeploymentWorkflow {
  private static final Map<String, Object> APPROVAL_SCHEMA = Map.of(
      "type", "object",
      "properties", Map.of("approved", Map.of("type", "boolean"), "comment", Map.of("type", "string")),
      "required", List.of("approved"));

  @Override
  public Map<String, Object> run(Map<String, Object> args, Map<String, Object> carry) {
    McpTask task = new McpTask(carry);
    return task.run(() -> deploy(task, args));
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> deploy(McpTask task, Map<String, Object> args) {
    String taskId = Workflow.getInfo().getWorkflowId();
    String service = (String) args.get("service");
    String version = (String) args.get("version");
    ExampleActivities activities = Steps.activities();
    task.setStatusMessage("reserving a deployment slot for " + service);
    String reservation = task.step(new Undo("ReleaseSlot", List.of(taskId, service), "reserve a slot for " + service),
        () -> activities.reserveSlot(taskId, service));
    task.setStatusMessage("waiting for approval to deploy " + service + " " + version);
    Number seconds = (Number) args.get("approvalTimeoutSeconds");
    Duration timeout = seconds == null ? null : Duration.ofMillis((long) (seconds.doubleValue() * 1000));
    Map<String, Object> answer = task.elicit("approval", "Deploy " + service + " " + version + "?", APPROVAL_SCHEMA, timeout);
    Map<String, Object> content = answer.get("content") instanceof Map ? (Map<String, Object>) answer.get("content") : Map.of();
    if (!"accept".equals(answer.get("action")) || !Boolean.TRUE.equals(content.get("approved"))) {
      task.compensate(); // nothing to deploy: give the slot back now
      String why = "accept".equals(answer.get("action")) ? "rejected" : "answered " + answer.get("action");
      String text = "Deployment of " + service + " " + version + " was not approved (" + why + ")";
      return Map.of("content", List.of(Map.of("type", "text", "text", text)), "isError", true);
    }
    task.setStatusMessage("deploying " + service + " " + version);
    Number watch = (Number) args.getOrDefault("watchSeconds", 0);
    task.step(new Undo("Undeploy", List.of(taskId, service, version), "deploy " + service + " " + version), () -> {
      activities.deploy(taskId, service, version, watch.doubleValue());
      return null;
    });
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("service", service);
    result.put("version", version);
    result.put("deployed", true);
    result.put("reservation", reservation);
    result.put("comment", content.getOrDefault("comment", ""));
    return result;
  }
}
