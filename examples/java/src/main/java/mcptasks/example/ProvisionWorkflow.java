package mcptasks.example;

import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.Map;

/**
 * Provisions an environment in steps, each with its undo: a cancel or a failure undoes every step
 * done or in flight, newest first, also those of earlier runs (stepsPerRun continues as new).
 */
@WorkflowInterface
public interface ProvisionWorkflow {
  @WorkflowMethod(name = "ProvisionWorkflow")
  Map<String, Object> run(Map<String, Object> args, Map<String, Object> carry);
}
