package io.taskmesh.cli.remote;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.cli.client.ClientException;
import io.taskmesh.cli.client.GatewayClient;
import io.taskmesh.cli.watch.ProgressLines;
import io.taskmesh.cli.watch.TaskFollower;
import io.taskmesh.cli.watch.TaskProgress;
import io.taskmesh.cli.watch.TaskView;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ./taskmesh tasks ...}: the caller's tasks on a running gateway. */
@Command(
    name = "tasks",
    mixinStandardHelpOptions = true,
    description = "List, read, watch, answer and cancel your tasks on a running gateway.",
    subcommands = {
      TasksCommand.ListTasks.class,
      TasksCommand.GetTask.class,
      TasksCommand.WatchTask.class,
      TasksCommand.CancelTask.class,
      TasksCommand.AnswerTask.class
    })
public final class TasksCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(), "tasks needs a subcommand: list, get, watch, answer or cancel");
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "Your tasks as a table, newest first.")
  static final class ListTasks extends RemoteCommand {
    @Option(
        names = "--status",
        paramLabel = "S",
        description =
            "only tasks in this status (pending, running, paused, succeeded, failed, canceled, auth_required)")
    String status;

    @Option(names = "--flow", paramLabel = "F", description = "only tasks of this flow")
    String flow;

    @Option(
        names = "--limit",
        paramLabel = "N",
        defaultValue = "20",
        description = "at most N tasks (default ${DEFAULT-VALUE})")
    int limit;

    @Override
    int run(GatewayClient client) {
      if (limit < 1) {
        throw new ClientException(ClientException.INVALID_INPUT, "--limit must be at least 1");
      }
      JsonNode page = client.tasks(status, flow, limit);
      out().print(Tables.tasks(page));
      int total = page.path("total").asInt();
      if (total > page.path("tasks").size()) {
        out().println("(" + page.path("tasks").size() + " of " + total + "; --limit shows more)");
      }
      out().flush();
      return 0;
    }
  }

  @Command(
      name = "get",
      mixinStandardHelpOptions = true,
      description = "One task as the gateway reads it (JSON).")
  static final class GetTask extends RemoteCommand {
    @Parameters(paramLabel = "ID", description = "the task id")
    String id;

    @Override
    int run(GatewayClient client) {
      out().println(ProgressLines.pretty(client.task(id)));
      out().flush();
      return 0;
    }
  }

  @Command(
      name = "watch",
      mixinStandardHelpOptions = true,
      description = {
        "Follow a task live, as ./taskmesh call does: bars per actor, FLY tokens, the result.",
        "A dropped connection is resumed with Last-Event-ID. Exit code 0 when the task succeeded, else 1."
      })
  static final class WatchTask extends RemoteCommand {
    @Parameters(paramLabel = "ID", description = "the task id")
    String id;

    @Option(
        names = "--plain",
        description = "plain lines even on a terminal (automatic when output is piped)")
    boolean plain;

    @Override
    int run(GatewayClient client) {
      try (TaskView view = Views.open(plain, out())) {
        TaskProgress end = new TaskFollower(client).follow(id, view);
        return end.succeeded() ? 0 : 1;
      }
    }
  }

  @Command(
      name = "cancel",
      mixinStandardHelpOptions = true,
      description = "Cancel a task that has not ended, and wait until it is canceled.")
  static final class CancelTask extends RemoteCommand {
    @Parameters(paramLabel = "ID", description = "the task id")
    String id;

    @Override
    int run(GatewayClient client) {
      client.cancel(id);
      TaskProgress end = new TaskFollower(client).follow(id, new SilentView(), false);
      out().println("task " + id + " " + end.status());
      out().flush();
      return "canceled".equals(end.status()) ? 0 : 1;
    }
  }

  @Command(
      name = "answer",
      mixinStandardHelpOptions = true,
      description = {
        "Answer a task that waits for input (status paused; `tasks get` shows its question).",
        "The words become the task's input {\"text\": ...}; then follow it with `tasks watch`."
      })
  static final class AnswerTask extends RemoteCommand {
    @Parameters(index = "0", paramLabel = "ID", description = "the task id")
    String id;

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "TEXT", description = "the answer")
    List<String> words;

    @Override
    int run(GatewayClient client) {
      client.answer(id, String.join(" ", words));
      out().println("task " + id + " resumed with your answer");
      out().flush();
      return 0;
    }
  }

  /** Cancel waits for the end without showing the way there. */
  private static final class SilentView implements TaskView {
    @Override
    public void update(TaskProgress progress, JsonNode update) {}

    @Override
    public void token(String text) {}

    @Override
    public void note(String text) {}

    @Override
    public void end(TaskProgress progress) {}

    @Override
    public void close() {}
  }
}
