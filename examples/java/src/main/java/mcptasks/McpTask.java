package mcptasks;

import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.failure.TemporalFailure;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.ContinueAsNewOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * The contract inside one workflow run (docs/contract.md): statusMessage, input requests answered
 * by tasks/update (partial answers too), steps with undos, the task's end decided in one place
 * ({@link #run}), continue-as-new carrying pending input and undos. Create it first thing in the
 * workflow method: {@code McpTask task = new McpTask(carry); return task.run(() -> body(task));}
 */
public final class McpTask {
  private static final DateTimeFormatter ISO = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private final CancellationScope root; // cancelled exactly when tasks/cancel arrived
  private final Progress progress;
  private final Map<String, Object> responses = new LinkedHashMap<>(); // received, not yet consumed
  private final Set<String> used = new TreeSet<>();
  private List<Undo> undos = new ArrayList<>(); // newest first, also those of earlier runs
  private final ClaimGuard claim; // null: the task asks for none, or its handle was claimed in an earlier run

  /** @param carry what {@link #carry()} returned before a continue-as-new, or null */
  @SuppressWarnings("unchecked")
  public McpTask(Map<String, Object> carry) {
    root = CancellationScope.current();
    Map<String, Object> c = carry == null ? Map.of() : carry;
    progress = c.get("progress") == null ? new Progress(now()) : Progress.fromMap((Map<String, Object>) c.get("progress"));
    if (c.get("responses") != null) responses.putAll((Map<String, Object>) c.get("responses"));
    if (c.get("usedKeys") != null) used.addAll((List<String>) c.get("usedKeys"));
    if (c.get("undos") != null) {
      for (Object u : (List<Object>) c.get("undos")) undos.add(Undo.fromMap((Map<String, Object>) u));
    }
    claim = ClaimGuard.arm(root, taskMemo(), carry == null, c.get("claimDeadline"));
    Workflow.registerListener(
        new ContractHandlers() {
          @Override
          public void inputResponses(Object answers) {
            onResponses(answers);
          }

          @Override
          public void claimed() {
            if (claim != null) claim.claim();
          }

          @Override
          public Map<String, Object> taskProgress() {
            return progress.toMap();
          }
        });
  }

  private void onResponses(Object answers) {
    if (!(answers instanceof Map)) { // raising here would fail every workflow task
      Workflow.getLogger(McpTask.class).warn("ignored an {} signal that is not an object of answers", Contract.INPUT_RESPONSES_SIGNAL);
      return;
    }
    ((Map<?, ?>) answers).forEach((key, value) -> {
      // only outstanding keys: never issued, withdrawn or already answered ones are ignored
      if (progress.inputRequests.containsKey(key) && !responses.containsKey(key)) responses.put((String) key, value);
    });
  }

  public void setStatusMessage(String message) {
    progress.publish(message, progress.inputRequests, this::published);
  }

  /**
   * Asks all of them at once; returns key -> response once every one is answered. With a timeout
   * (null: none) the unanswered ones are withdrawn after it and InputTimeout is thrown; the server's
   * limit (memo mcpTask.answerWithinMs) throws McpTaskUnanswered when it is shorter. A reused key
   * is a bug: IllegalStateException (the workflow task fails and is retried).
   */
  public Map<String, Object> requestInputs(Map<String, Map<String, Object>> requests, Duration timeout) {
    Map<String, Object> asked = new LinkedHashMap<>(progress.inputRequests);
    for (Map.Entry<String, Map<String, Object>> r : requests.entrySet()) {
      if (asked.containsKey(r.getKey())) continue; // carried from the previous run: still outstanding
      if (!used.add(r.getKey())) throw new IllegalStateException("input key \"" + r.getKey() + "\" was already used in this task");
      asked.put(r.getKey(), r.getValue());
    }
    progress.publish(progress.statusMessage, asked, this::published);
    Map<String, Object> answers = new LinkedHashMap<>();
    Duration limit = answerLimit();
    boolean ownFirst = limit == null || (timeout != null && timeout.compareTo(limit) <= 0);
    Duration wait = ownFirst ? timeout : limit;
    long deadline = wait == null ? 0 : Workflow.currentTimeMillis() + wait.toMillis(); // one deadline for the question
    try {
      while (answers.size() < requests.size()) {
        Supplier<Boolean> answered = () -> requests.keySet().stream().anyMatch(k -> !answers.containsKey(k) && responses.containsKey(k));
        if (wait == null) {
          Workflow.await(answered);
        } else {
          long left = deadline - Workflow.currentTimeMillis();
          if (left <= 0 || !Workflow.await(Duration.ofMillis(left), answered)) {
            take(requests, answers); // an answer recorded with the timer still counts
            List<String> missing = missing(requests, answers);
            if (!missing.isEmpty()) throw ownFirst ? Contract.inputTimeout(missing) : Contract.unanswered(missing, limit.toMillis());
          }
        }
        take(requests, answers);
      }
      return answers;
    } finally { // withdrawn when the wait ends otherwise (cancelled, timed out), with any answer for them
      List<String> missing = missing(requests, answers);
      missing.forEach(responses::remove);
      if (!missing.isEmpty()) progress.publish(progress.statusMessage, without(progress.inputRequests, missing), this::published);
    }
  }

  /** A form elicitation; returns the ElicitResult. Unanswered within timeout it is withdrawn and reads as {"action": "cancel"}. */
  @SuppressWarnings("unchecked")
  public Map<String, Object> elicit(String key, String message, Map<String, Object> schema, Duration timeout) {
    Map<String, Object> request =
        Map.of("method", "elicitation/create", "params", Map.of("mode", "form", "message", message, "requestedSchema", schema));
    try {
      return (Map<String, Object>) requestInputs(Map.of(key, request), timeout).get(key);
    } catch (ApplicationFailure e) {
      if (Contract.isInputTimeout(e)) return Map.of("action", "cancel");
      throw e;
    }
  }

  private void take(Map<String, ?> requests, Map<String, Object> answers) {
    for (String key : requests.keySet()) {
      if (!answers.containsKey(key) && responses.containsKey(key)) answers.put(key, responses.remove(key));
    }
    progress.publish(progress.statusMessage, without(progress.inputRequests, answers.keySet()), this::published);
  }

  private static List<String> missing(Map<String, ?> requests, Map<String, Object> answers) {
    return requests.keySet().stream().filter(k -> !answers.containsKey(k)).toList();
  }

  private static Map<String, Object> without(Map<String, Object> requests, java.util.Collection<String> drop) {
    Map<String, Object> out = new LinkedHashMap<>(requests);
    drop.forEach(out::remove);
    return out;
  }

  /** The server's limit on an unanswered wait (memo answerWithinMs); null: none. */
  private Duration answerLimit() {
    Object within = taskMemo().get("answerWithinMs");
    return within instanceof Number n && n.doubleValue() > 0 ? Duration.ofMillis(n.longValue()) : null;
  }

  /**
   * Runs a step whose effect undo reverses if the task is cancelled or fails. The undo is registered
   * before the step runs, so a step in flight is undone too (run forward activities with
   * WAIT_CANCELLATION_COMPLETED so an undo never overtakes its step).
   */
  public <T> T step(Undo undo, Supplier<T> forward) {
    undos.add(0, undo);
    return forward.get();
  }

  /** Undoes every registered step now, newest first, where the task's cancel cannot reach; every undo is attempted. */
  public void compensate() {
    compensate(null);
  }

  /** after: why the steps are undone, named when an undo fails (null: the failure says no more). */
  private void compensate(String after) {
    List<Undo> pending = undos;
    undos = new ArrayList<>();
    List<Map<String, String>> failures = new ArrayList<>();
    Workflow.newDetachedCancellationScope(() -> pending.forEach(undo -> {
      setStatusMessage("undoing: " + undo.name());
      ActivityOptions options = ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofMillis((long) (undo.startToCloseSeconds() * 1000)))
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(undo.maximumAttempts()).build())
          .build();
      try {
        Workflow.newUntypedActivityStub(options).execute(undo.activity(), Void.class, undo.args().toArray());
      } catch (TemporalFailure e) {
        failures.add(Map.of("step", undo.name(), "error", Contract.reason(e)));
      }
    })).run();
    if (failures.isEmpty()) return;
    List<String> steps = failures.stream().map(f -> f.get("step")).toList();
    setStatusMessage("could not undo: " + String.join(", ", steps));
    List<String> listed = failures.stream().map(f -> f.get("step") + " (" + f.get("error") + ")").toList();
    String why = after == null ? "" : " after " + after;
    throw Contract.protocolError(-32603, failures.size() + " step(s) could not be undone" + why + ": " + String.join("; ", listed),
        Map.of("undoFailures", failures));
  }

  /**
   * Runs the workflow's body and ends the task as docs/contract.md's table says: a cancel Temporal
   * delivered (also after the body returned) undoes every step and ends it cancelled; a failure, or a
   * cancellation nobody requested (a scope the tool cancelled), undoes them and fails it; the claim
   * guard (memo claimWithinMs, see ClaimGuard) cancels the body, undoes them and fails it as
   * McpTaskUnclaimed; a failed undo turns any of them into failed, -32603 naming the steps; a bug (an
   * exception that is not a TemporalFailure) is no end: the workflow task fails and is retried,
   * nothing is undone; continue-as-new undoes nothing.
   */
  public <T> T run(Supplier<T> body) {
    T result;
    try {
      result = claim == null ? body.get() : claim.guard(body);
      if (root.isCancelRequested()) throw new CanceledFailure("the cancel came after the body returned");
      if (claim != null && claim.fired()) throw new CanceledFailure(claim.message());
    } catch (TemporalFailure err) {
      throw end(err);
    }
    recordStatus("completed");
    return result;
  }

  /** The one place a task's end is decided: McpTaskStatus and the failure thrown (Temporal's close status) come from it. */
  private TemporalFailure end(TemporalFailure err) {
    boolean unclaimed = claim != null && claim.fired(); // it fired first: a cancel that came later does not take it over
    boolean cancelled = root.isCancelRequested();
    try {
      compensate(unclaimed ? claim.message() : null);
    } catch (ApplicationFailure failed) {
      recordStatus("failed");
      return failed;
    }
    if (unclaimed) {
      recordStatus("failed");
      return claim.failure();
    }
    if (cancelled) { // Java closes CANCELED for a CanceledFailure with a cancel requested, not for an ActivityFailure
      recordStatus("cancelled");
      return err instanceof CanceledFailure ? err : new CanceledFailure("tasks/cancel: every step undone");
    }
    recordStatus("failed");
    return Contract.isCancellation(err) ? Contract.toolCancellation(err) : err;
  }

  /** What the next run needs (the last argument of continue-as-new). */
  public Map<String, Object> carry() {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("progress", progress.toMap());
    c.put("responses", responses);
    c.put("usedKeys", new ArrayList<>(used));
    c.put("undos", undos.stream().map(Undo::toMap).toList());
    Long claimDeadline = claim == null ? null : claim.unclaimedDeadline();
    if (claimDeadline != null) c.put("claimDeadline", claimDeadline); // the next run ends at the same moment
    return c;
  }

  /**
   * Continues as new (the same workflow type) with args plus the carry, passing the memo (mcpTask,
   * mcpProgress) and the search attributes: the Java SDK does not carry them by itself. A cancel
   * already requested ends the task cancelled instead.
   */
  public void continueAsNew(Object... args) {
    if (root.isCancelRequested()) throw new CanceledFailure("cancelled before continuing as new");
    if (claim != null && claim.fired()) throw new CanceledFailure(claim.message());
    Object[] all = java.util.Arrays.copyOf(args, args.length + 1);
    all[args.length] = carry();
    Map<String, Object> memo = new LinkedHashMap<>();
    memo.put(Contract.TASK_MEMO_KEY, taskMemo());
    memo.put(Contract.PROGRESS_MEMO_KEY, progress.toMap());
    Workflow.continueAsNew(
        ContinueAsNewOptions.newBuilder().setMemo(memo).setTypedSearchAttributes(Workflow.getTypedSearchAttributes()).build(), all);
  }

  /** McpTaskStatus, only where the server set it (the namespace has it registered). */
  private void recordStatus(String status) {
    if (Workflow.getTypedSearchAttributes().containsKey(Contract.TASK_STATUS)) {
      Workflow.upsertTypedSearchAttributes(Contract.TASK_STATUS.valueSet(status));
    }
  }

  private void published(boolean statusChanged) {
    Workflow.upsertMemo(Map.of(Contract.PROGRESS_MEMO_KEY, progress.toMap()));
    Workflow.setCurrentDetails(progress.details((String) taskMemo().get("summary")));
    if (statusChanged) recordStatus(progress.status);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> taskMemo() {
    Object memo = Workflow.getMemo(Contract.TASK_MEMO_KEY, Map.class);
    return memo instanceof Map ? (Map<String, Object>) memo : Map.of();
  }

  static String now() {
    return ISO.format(Instant.ofEpochMilli(Workflow.currentTimeMillis()));
  }
}
