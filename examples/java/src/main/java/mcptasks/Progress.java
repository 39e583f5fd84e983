package mcptasks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** The memo mcpProgress (docs/contract.md "Progress: memo mcpProgress"). */
final class Progress {
  String status = "working"; // input_required exactly when inputRequests is non-empty
  String statusMessage; // null: none
  String lastUpdatedAt; // the workflow's clock
  Map<String, Object> inputRequests = new LinkedHashMap<>();

  Progress(String lastUpdatedAt) {
    this.lastUpdatedAt = lastUpdatedAt;
  }

  /** Changes it; when status, statusMessage or the set of keys changed, onChange(status changed) publishes it. */
  void publish(String message, Map<String, Object> requests, Consumer<Boolean> onChange) {
    String nextStatus = requests.isEmpty() ? "working" : "input_required";
    boolean same = nextStatus.equals(status) && java.util.Objects.equals(message, statusMessage)
        && requests.keySet().equals(inputRequests.keySet());
    if (same) return;
    boolean statusChanged = !nextStatus.equals(status);
    status = nextStatus;
    statusMessage = message;
    inputRequests = new LinkedHashMap<>(requests);
    lastUpdatedAt = McpTask.now();
    onChange.accept(statusChanged);
  }

  Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("status", status);
    if (statusMessage != null) m.put("statusMessage", statusMessage);
    m.put("lastUpdatedAt", lastUpdatedAt);
    m.put("inputRequests", inputRequests);
    return m;
  }

  @SuppressWarnings("unchecked")
  static Progress fromMap(Map<String, Object> m) {
    Progress p = new Progress((String) m.get("lastUpdatedAt"));
    p.status = (String) m.get("status");
    p.statusMessage = (String) m.get("statusMessage");
    if (m.get("inputRequests") != null) p.inputRequests = new LinkedHashMap<>((Map<String, Object>) m.get("inputRequests"));
    return p;
  }

  String details(String summary) {
    List<String> lines = new ArrayList<>();
    if (summary != null) lines.add(summary);
    lines.add("**" + status + "**" + (statusMessage == null ? "" : ": " + statusMessage));
    if (!inputRequests.isEmpty()) lines.add("waiting for input: " + String.join(", ", inputRequests.keySet()));
    return String.join("\n\n", lines);
  }
}
