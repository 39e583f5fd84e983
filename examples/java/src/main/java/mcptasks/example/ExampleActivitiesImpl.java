package mcptasks.example;

import io.temporal.failure.ApplicationFailure;
import java.util.Map;
import java.util.function.DoubleConsumer;
import mcptasks.Contract;

public final class ExampleActivitiesImpl implements ExampleActivities {
  static String slotName(String taskId, String service) { // derived: the release knows it in advance
    return "slot-" + service + "-" + taskId.substring(taskId.length() - 6);
  }

  @Override
  public String reserveSlot(String taskId, String service) {
    Ledger.recordOnce("reserve", taskId, Map.of("service", service), Map.of());
    return slotName(taskId, service);
  }

  @Override
  public void releaseSlot(String taskId, String service) {
    if (!Ledger.recorded("reserve", taskId, Map.of("service", service))) return;
    Ledger.recordOnce("release", taskId, Map.of("service", service), Map.of("reservation", slotName(taskId, service)));
  }

  @Override
  public void deploy(String taskId, String service, String version, double watchSeconds) {
    Ledger.recordOnce("deploy", taskId, Map.of("service", service, "version", version), Map.of());
    work(watchSeconds, share -> Contract.reportProgress("watching the rollout of " + service + " " + version, null, null));
  }

  @Override
  public void undeploy(String taskId, String service, String version) {
    Map<String, Object> fields = Map.of("service", service, "version", version);
    if (Ledger.recorded("deploy", taskId, fields)) Ledger.recordOnce("undeploy", taskId, fields, Map.of());
  }

  @Override
  public void provisionStep(String taskId, int step, double seconds, boolean fail) {
    work(seconds, share -> Contract.reportProgress("step " + step + ": provisioning", (int) (share * 100), 100));
    if (fail) throw ApplicationFailure.newNonRetryableFailure("step " + step + " failed", "StepFailed");
    Ledger.recordOnce("provision", taskId, Map.of("step", step), Map.of());
  }

  @Override
  public void deprovisionStep(String taskId, int step, boolean refuse) {
    if (refuse) {
      Ledger.record("deprovision-refused", taskId, Map.of("step", step));
      throw ApplicationFailure.newNonRetryableFailure("step " + step + " is locked and cannot be deprovisioned", "UndoRefused");
    }
    boolean applied = Ledger.recorded("provision", taskId, Map.of("step", step));
    Ledger.recordOnce("deprovision", taskId, Map.of("step", step), Map.of("applied", applied));
  }

  /** Reports progress every 200 ms for seconds; a cancel arrives as the heartbeat's exception and ends it. */
  private static void work(double seconds, DoubleConsumer report) {
    long start = System.nanoTime();
    long length = (long) (seconds * 1e9);
    for (long elapsed = 0; elapsed < length; elapsed = System.nanoTime() - start) {
      report.accept((double) elapsed / length);
      try {
        Thread.sleep(Math.max(1, Math.min(200, (length - elapsed) / 1_000_000)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
  }
}
