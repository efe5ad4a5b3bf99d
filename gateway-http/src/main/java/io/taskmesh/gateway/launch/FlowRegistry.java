package io.taskmesh.gateway.launch;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.taskmesh.schemas.FlowConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The flows this gateway exposes, from the YAML flow config ({@code flows: [...]}). {@link
 * #reload()} re-reads the file: an invalid file keeps the last good flows (and logs why); a missing
 * file means no flows. Listeners hear about every change.
 */
public final class FlowRegistry {
  private static final Logger LOG = LoggerFactory.getLogger(FlowRegistry.class);
  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory())
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private final Path file;
  private final List<Consumer<Map<String, FlowConfig>>> listeners = new CopyOnWriteArrayList<>();
  private volatile Map<String, FlowConfig> flows = Map.of();

  /**
   * The bytes of the last read that was decided on (applied, unchanged or refused; null: no file,
   * which is also where a registry starts: no flows). The file is polled every few seconds for
   * ever, and parsing YAML is most of a poll's cost: the same bytes again are not parsed again.
   */
  private byte[] decided;

  private int parses;

  private FlowRegistry(Path file) {
    this.file = file;
  }

  /** Loads the file now; start-up with no (or an invalid) file starts with no flows. */
  public static FlowRegistry load(Path file) {
    FlowRegistry registry = new FlowRegistry(file);
    registry.reload(false); // nobody listens yet, and the next reload corrects a torn read
    return registry;
  }

  /**
   * How long a changed file must stay byte-for-byte the same before it is applied: a writer that
   * truncates and then writes (a shell redirect, {@code Files.writeString}) can otherwise be read
   * empty or half-written, and clients would be told the tools went away.
   */
  static final long SETTLE_MS = 100;

  /** Re-reads the file; returns true when the flows changed. */
  public synchronized boolean reload() {
    return reload(true);
  }

  private synchronized boolean reload(boolean settle) {
    Map<String, FlowConfig> next;
    byte[] seen = null;
    try {
      seen = read();
      if (Arrays.equals(seen, decided)) {
        return false;
      }
      parses++;
      next = seen == null ? Map.of() : parse(seen, String.valueOf(file));
      if (next.equals(flows)) {
        decided = seen;
        return false;
      }
      if (settle && !settled(seen)) {
        LOG.info("flow config {} is being written; the next reload reads it", file);
        return false;
      }
    } catch (IllegalArgumentException e) {
      LOG.warn("flow config {} is invalid, keeping the last good one: {}", file, e.getMessage());
      if (seen != null) { // a file that could not be read is not decided on: read it next time
        decided = seen;
      }
      return false;
    }
    decided = seen;
    flows = Collections.unmodifiableMap(new LinkedHashMap<>(next));
    LOG.info("flow config loaded: {}", flows.keySet());
    listeners.forEach(l -> l.accept(flows));
    return true;
  }

  /** How many times the file was parsed (tests: an unchanged file is not parsed again). */
  synchronized int parses() {
    return parses;
  }

  /** True when the file still reads {@code seen} after {@link #SETTLE_MS}. */
  private boolean settled(byte[] seen) {
    try {
      Thread.sleep(SETTLE_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    return Arrays.equals(seen, read());
  }

  /** The file's bytes, or null when there is no file (no flows). */
  private byte[] read() {
    if (file == null) {
      return null;
    }
    try {
      return Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }

  /** Called with the new flows after every change. */
  public void onChange(Consumer<Map<String, FlowConfig>> listener) {
    listeners.add(listener);
  }

  /** Parses a flow config file; throws {@link IllegalArgumentException} naming what is wrong. */
  public static Map<String, FlowConfig> parse(Path file) {
    try {
      return parse(Files.readAllBytes(file), file.toString());
    } catch (IOException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }

  private static Map<String, FlowConfig> parse(byte[] yaml, String file) {
    try {
      JsonNode root = YAML.readTree(yaml);
      Map<String, FlowConfig> out = new LinkedHashMap<>();
      JsonNode list = root == null ? null : root.get("flows");
      if (list == null || list.isNull()) {
        return out;
      }
      if (!list.isArray()) {
        throw new IllegalArgumentException(file + ": 'flows' must be a list");
      }
      String defaultSkill = null;
      for (JsonNode entry : list) {
        FlowConfig flow = YAML.treeToValue(entry, FlowConfig.class);
        if (out.putIfAbsent(flow.name(), flow) != null) {
          throw new IllegalArgumentException(
              file + ": flow name '" + flow.name() + "' is not unique");
        }
        if (flow.isDefaultA2aSkill()) {
          if (defaultSkill != null) {
            throw new IllegalArgumentException(
                file
                    + ": flows '"
                    + defaultSkill
                    + "' and '"
                    + flow.name()
                    + "' both set 'a2a.default: true'; at most one A2A skill is the default");
          }
          defaultSkill = flow.name();
        }
      }
      return out;
    } catch (IOException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }

  public Optional<FlowConfig> flow(String name) {
    return Optional.ofNullable(flows.get(name));
  }

  /** A flow exposed as an MCP tool (it has an {@code mcp} section). */
  public Optional<FlowConfig> tool(String name) {
    return flow(name).filter(FlowConfig::isTool);
  }

  public Map<String, FlowConfig> all() {
    return flows;
  }
}
