package io.taskmesh.gateway.a2a;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.gateway.a2a.model.A2aMessages;
import io.taskmesh.gateway.a2a.model.A2aState;
import io.taskmesh.gateway.a2a.model.A2aTask;
import io.taskmesh.gateway.a2a.model.A2aTasks;
import io.taskmesh.gateway.follow.PageToken;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.topology.TaskListing;
import java.util.List;
import java.util.function.Predicate;

/** {@code tasks/get} and {@code tasks/list}: the caller's tasks, one or a page of them. */
final class TaskReadMethods {
  static final int DEFAULT_PAGE_SIZE = 50;
  static final int MAX_PAGE_SIZE = 100;

  /** The result of {@code tasks/list}; {@code nextPageToken} is empty on the last page. */
  @JsonPropertyOrder({"tasks", "nextPageToken", "pageSize", "totalSize"})
  record TaskPage(List<A2aTask> tasks, String nextPageToken, int pageSize, int totalSize) {}

  private final OwnedTasks tasks;
  private final TaskListing listing;

  TaskReadMethods(OwnedTasks tasks, TaskListing listing) {
    this.tasks = tasks;
    this.listing = listing;
  }

  void get(A2aCall call) {
    ObjectNode params = call.params();
    String id = A2aMessages.requiredString(params, "id");
    Integer historyLength = A2aMessages.historyLength(params.get("historyLength"), "historyLength");
    call.reply(A2aTasks.task(tasks.visible(id, call.principal()), historyLength));
  }

  void list(A2aCall call) {
    ObjectNode params = call.params();
    int pageSize = pageSize(params.get("pageSize"));
    int offset = pageOffset(A2aMessages.optionalString(params, "pageToken", "pageToken"));
    TaskStatus wanted = statusFilter(A2aMessages.optionalString(params, "status", "status"));
    String contextId = A2aMessages.optionalString(params, "contextId", "contextId");
    Integer historyLength = A2aMessages.historyLength(params.get("historyLength"), "historyLength");
    // parentId (ours): the fan-out children of one task
    String parentId = A2aMessages.optionalString(params, "parentId", "parentId");
    Predicate<TaskState> filter =
        s ->
            (wanted == null || wanted == s.status())
                && (contextId == null || contextId.equals(A2aTasks.contextId(s)))
                && (parentId == null || parentId.equals(s.parentId()));
    TaskListing.Page page = listing.list(call.principal(), filter, offset, pageSize);
    int next = page.offset() + page.tasks().size();
    call.reply(
        new TaskPage(
            page.tasks().stream()
                .map(s -> A2aTasks.task(s, historyLength == null ? 0 : historyLength))
                .toList(),
            next < page.total() ? PageToken.encode(next) : "",
            pageSize,
            page.total()));
  }

  private static int pageSize(JsonNode size) {
    if (size == null || size.isNull()) {
      return DEFAULT_PAGE_SIZE;
    }
    if (!size.isIntegralNumber()
        || !size.canConvertToInt()
        || size.asInt() < 1
        || size.asInt() > MAX_PAGE_SIZE) {
      throw A2aException.params(
          "Invalid params: 'pageSize' must be an integer from 1 to " + MAX_PAGE_SIZE);
    }
    return size.asInt();
  }

  /** The gateway status an A2A {@code status} filter names; null for no filter. */
  private static TaskStatus statusFilter(String state) {
    if (state == null || state.isEmpty()) {
      return null;
    }
    TaskStatus status = A2aState.gatewayStatus(state);
    if (status == null) {
      throw A2aException.params("Invalid params: unknown 'status' \"" + state + "\"");
    }
    return status;
  }

  /**
   * The offset of a page token; 0 for none; InvalidParams for a token this server did not issue.
   */
  static int pageOffset(String token) {
    if (token == null || token.isEmpty()) {
      return 0;
    }
    return PageToken.decode(token)
        .orElseThrow(
            () ->
                A2aException.params(
                    "Invalid params: 'pageToken' is not a token this server issued"));
  }
}
