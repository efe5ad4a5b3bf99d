package io.taskmesh.gateway.a2a;

import io.taskmesh.gateway.a2a.push.PushConfigStore;
import io.taskmesh.schemas.FlowConfig;
import io.taskmesh.topology.TaskCommands;
import io.taskmesh.topology.TaskListing;
import io.taskmesh.topology.TaskQueries;
import io.taskmesh.topology.UpdateFeed;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What the A2A edge needs of the rest of the gateway, each as the narrowest port.
 *
 * @param flows the flows now configured, by name (those with an {@code a2a} section are skills)
 * @param starter starts and resumes tasks
 * @param fly live FLY events
 * @param queries stored task states (forwarded to the owning replica when needed)
 * @param commands appends task events (cancel)
 * @param feed live task updates
 * @param listing one owner's tasks, page by page ({@code tasks/list})
 * @param pushConfigs where push-notification configs are kept for every replica
 */
public record A2aPorts(
    Supplier<Map<String, FlowConfig>> flows,
    TaskStarter starter,
    FlyFeed fly,
    TaskQueries queries,
    TaskCommands commands,
    UpdateFeed feed,
    TaskListing listing,
    PushConfigStore pushConfigs) {

  /** Push configs in this process's memory only. */
  public A2aPorts(
      Supplier<Map<String, FlowConfig>> flows,
      TaskStarter starter,
      FlyFeed fly,
      TaskQueries queries,
      TaskCommands commands,
      UpdateFeed feed,
      TaskListing listing) {
    this(flows, starter, fly, queries, commands, feed, listing, PushConfigStore.inMemory());
  }

  public A2aPorts {
    Objects.requireNonNull(flows, "flows");
    Objects.requireNonNull(starter, "starter");
    Objects.requireNonNull(fly, "fly");
    Objects.requireNonNull(queries, "queries");
    Objects.requireNonNull(commands, "commands");
    Objects.requireNonNull(feed, "feed");
    Objects.requireNonNull(listing, "listing");
    Objects.requireNonNull(pushConfigs, "pushConfigs");
  }
}
