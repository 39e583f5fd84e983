package mcptasks.example;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** The activities of the example workflows; each appends to the effects ledger ({@link Ledger}). */
@ActivityInterface
public interface ExampleActivities {
  @ActivityMethod(name = "ReserveSlot")
  String reserveSlot(String taskId, String service);

  /** The undo of reserveSlot: idempotent, a no-op for a slot never reserved. */
  @ActivityMethod(name = "ReleaseSlot")
  void releaseSlot(String taskId, String service);

  /** Deploys once, then watches the rollout for watchSeconds, reporting progress. */
  @ActivityMethod(name = "Deploy")
  void deploy(String taskId, String service, String version, double watchSeconds);

  /** The undo of deploy: idempotent, a no-op for a version never deployed. */
  @ActivityMethod(name = "Undeploy")
  void undeploy(String taskId, String service, String version);

  /** Works for seconds reporting progress, then applies its effect once; cancelled before, it applies nothing. */
  @ActivityMethod(name = "ProvisionStep")
  void provisionStep(String taskId, int step, double seconds, boolean fail);

  /** The undo of provisionStep: a no-op (recorded as such) for a step never applied. */
  @ActivityMethod(name = "DeprovisionStep")
  void deprovisionStep(String taskId, int step, boolean refuse);
}
