package mcptasks;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import java.util.Map;

/** The signals and query of the contract, registered by {@link McpTask} with Workflow.registerListener. */
public interface ContractHandlers {
  /** tasks/update's answers {key: response}; Object: a payload that is not an object is ignored, not a decoding error. */
  @SignalMethod(name = Contract.INPUT_RESPONSES_SIGNAL)
  void inputResponses(Object responses);

  /** The handle reached its caller (a task started with mcpTask.claimWithinMs): the claim guard stands down. */
  @SignalMethod(name = Contract.CLAIMED_SIGNAL)
  void claimed();

  @QueryMethod(name = Contract.TASK_PROGRESS_QUERY)
  Map<String, Object> taskProgress();
}
