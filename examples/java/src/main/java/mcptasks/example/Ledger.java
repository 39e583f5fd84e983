package mcptasks.example;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;

/** The effects ledger (LEDGER_FILE): one JSON line per effect, the test reads them back. */
final class Ledger {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path PATH = Path.of(System.getenv().getOrDefault("LEDGER_FILE", "ledger.jsonl"));

  private Ledger() {}

  static synchronized void record(String event, String taskId, Map<String, Object> fields) {
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put("event", event);
    entry.put("taskId", taskId);
    entry.putAll(fields);
    try {
      Files.writeString(PATH, JSON.writeValueAsString(entry) + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Whether the ledger has this event for the task with these fields (compared as JSON values). */
  static synchronized boolean recorded(String event, String taskId, Map<String, Object> fields) {
    if (!Files.exists(PATH)) return false;
    try {
      Map<?, ?> wanted = JSON.readValue(JSON.writeValueAsString(fields), Map.class);
      for (String line : Files.readAllLines(PATH, StandardCharsets.UTF_8)) {
        if (line.isBlank()) continue;
        Map<?, ?> entry = JSON.readValue(line, Map.class);
        if (event.equals(entry.get("event")) && taskId.equals(entry.get("taskId"))
            && wanted.entrySet().stream().allMatch(w -> w.getValue().equals(entry.get(w.getKey())))) {
          return true;
        }
      }
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Records the event unless it is there: a retried attempt applies it once. */
  static synchronized void recordOnce(String event, String taskId, Map<String, Object> fields, Map<String, Object> extra) {
    if (recorded(event, taskId, fields)) return;
    Map<String, Object> all = new LinkedHashMap<>(fields);
    all.putAll(extra);
    record(event, taskId, all);
  }
}
