package mcptasks.example;

import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.Map;

/**
 * Reserves a slot, asks for approval (a form elicitation, timed if asked), deploys and watches the
 * rollout; a cancel, a failure or a refusal releases the slot, a cancel while it watches undeploys.
 */
@WorkflowInterface
public interface ApproveDeploymentWorkflow {
  /** @param carry the helper's carry after a continue-as-new; null when the server starts it */
  @WorkflowMethod(name = "ApproveDeploymentWorkflow")
  Map<String, Object> run(Map<String, Object> args, Map<String, Object> carry);
}
