package mcptasks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A compensating activity: data (a registered activity name and its arguments), so it can travel
 * through continue-as-new. It may run for a step that never took effect (a cancel while the step
 * is in flight): make it idempotent, and a no-op then.
 *
 * @param step what the step did: named when its undo fails
 */
public record Undo(String activity, List<Object> args, String step, double startToCloseSeconds, int maximumAttempts) {
  public Undo(String activity, List<Object> args, String step) {
    this(activity, args, step, 60, 3); // three attempts: a compensation must end
  }

  String name() {
    return step == null || step.isEmpty() ? activity : step;
  }

  Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("activity", activity);
    m.put("args", args);
    m.put("step", step);
    m.put("startToCloseSeconds", startToCloseSeconds);
    m.put("maximumAttempts", maximumAttempts);
    return m;
  }

  @SuppressWarnings("unchecked")
  static Undo fromMap(Map<String, Object> m) {
    return new Undo(
        (String) m.get("activity"),
        new ArrayList<>((List<Object>) m.get("args")),
        (String) m.get("step"),
        ((Number) m.get("startToCloseSeconds")).doubleValue(),
        ((Number) m.get("maximumAttempts")).intValue());
  }
}
