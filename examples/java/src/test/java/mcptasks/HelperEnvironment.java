package mcptasks;

import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Temporal's in-memory test server (time skipping) running HelperWorkflow on `queue`, its steps
 * and undos recorded in `effects`; the undo of the step named `refuse` fails.
 */
abstract class HelperEnvironment {
  final String queue;
  final List<String> effects = Collections.synchronizedList(new ArrayList<>());
  String refuse = "";
  TestWorkflowEnvironment env;

  HelperEnvironment(String queue) {
    this.queue = queue;
  }

  @BeforeEach
  void start() {
    env = TestWorkflowEnvironment.newInstance();
    Worker worker = env.newWorker(queue);
    worker.registerWorkflowImplementationTypes(HelperWorkflow.Impl.class);
    worker.registerActivitiesImplementations(new HelperWorkflow.Steps() {
      @Override
      public void doStep(String step) {
        effects.add("do " + step);
      }

      @Override
      public void undo(String step) {
        if (step.equals(refuse)) throw ApplicationFailure.newNonRetryableFailure(step + " is locked", "Locked");
        effects.add("undo " + step);
      }
    });
    env.start();
  }

  @AfterEach
  void stop() {
    env.close();
  }
}
