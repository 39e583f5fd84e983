package mcptasks;

import io.temporal.activity.Activity;
import io.temporal.common.SearchAttributeKey;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The names and failures of the MCP task runtime contract (docs/contract.md, version 1) for
 * Temporal Java workflows; {@link McpTask} is the contract inside a workflow run.
 */
public final class Contract {
  public static final int VERSION = 1;
  public static final String TASK_MEMO_KEY = "mcpTask"; // written by the server at start: read it, never write it
  public static final String PROGRESS_MEMO_KEY = "mcpProgress";
  public static final String INPUT_RESPONSES_SIGNAL = "mcp.inputResponses";
  public static final String CLAIMED_SIGNAL = "mcp.claimed";
  public static final String TASK_PROGRESS_QUERY = "mcp.taskProgress";
  public static final String ACTIVITY_PROGRESS_KEY = "mcpProgress";
  public static final String PROTOCOL_ERROR = "McpProtocolError";
  public static final String INPUT_TIMEOUT = "InputTimeout";
  public static final String UNANSWERED = "McpTaskUnanswered";
  public static final String UNCLAIMED = "McpTaskUnclaimed";
  public static final String TOOL_CANCELLATION = "ToolCancellation";
  public static final SearchAttributeKey<String> TASK_STATUS = SearchAttributeKey.forKeyword("McpTaskStatus");

  private Contract() {}

  /**
   * From an activity: the task's statusMessage shows this while the activity runs, e.g. "exporting
   * rows (4,000 of 10,000)". It is a heartbeat (Temporal keeps only the latest details: heartbeat
   * through this method). done and total may be null. Throws the SDK's exception when the activity
   * is cancelled: let it through.
   */
  public static void reportProgress(String message, Number done, Number total) {
    Map<String, Object> progress = new LinkedHashMap<>();
    progress.put("message", message);
    if (done != null) progress.put("done", done);
    if (total != null) progress.put("total", total);
    Activity.getExecutionContext().heartbeat(Map.of(ACTIVITY_PROGRESS_KEY, progress));
  }

  /** Throw it to end the task failed with this JSON-RPC error (data may be null). */
  public static ApplicationFailure protocolError(int code, String message, Object data) {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("code", code);
    if (data != null) details.put("data", data);
    return ApplicationFailure.newNonRetryableFailure(message, PROTOCOL_ERROR, details);
  }

  /** No answer for these keys in time; they were withdrawn. Uncaught, it fails the task. */
  public static ApplicationFailure inputTimeout(List<String> keys) {
    return ApplicationFailure.newNonRetryableFailure("no answer for " + String.join(", ", keys) + " in time", INPUT_TIMEOUT);
  }

  public static boolean isInputTimeout(Throwable err) {
    return err instanceof ApplicationFailure && INPUT_TIMEOUT.equals(((ApplicationFailure) err).getType());
  }

  static ApplicationFailure unanswered(List<String> keys, long limitMs) {
    return ApplicationFailure.newNonRetryableFailure(
        "nobody answered " + String.join(", ", keys) + " within " + limitMs + " ms: the task ends, as nobody is left to answer it",
        UNANSWERED);
  }

  /** The tool's own cancellation (a scope it cancelled), not tasks/cancel. No cause: it must not read as a cancel. */
  static ApplicationFailure toolCancellation(Throwable err) {
    return ApplicationFailure.newNonRetryableFailure(
        "the tool's own cancellation scope was cancelled (an inner scope), not tasks/cancel: " + err.getMessage(), TOOL_CANCELLATION);
  }

  /** A cancellation as the SDK raises it: a CanceledFailure, or a failure (an activity's) caused by one. */
  public static boolean isCancellation(Throwable err) {
    for (Throwable e = err; e != null; e = e.getCause()) {
      if (e instanceof CanceledFailure) return true;
    }
    return false;
  }

  /** A failure's own message: an ActivityFailure's names ids and the worker's identity, its cause says why. */
  static String reason(Throwable err) {
    Throwable e = err;
    while (e.getCause() != null && !(e instanceof ApplicationFailure)) e = e.getCause();
    return e instanceof ApplicationFailure ? ((ApplicationFailure) e).getOriginalMessage() : e.getMessage();
  }
}
