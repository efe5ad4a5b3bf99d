package io.taskmesh.cli.remote;

import io.taskmesh.cli.watch.PlainView;
import io.taskmesh.cli.watch.TaskView;
import io.taskmesh.cli.watch.TerminalView;
import java.io.PrintWriter;

/** The live view on a terminal, plain lines otherwise (or when asked for). */
final class Views {
  private Views() {}

  static TaskView open(boolean plain, PrintWriter out) {
    return plain ? new PlainView(out) : TerminalView.open().orElseGet(() -> new PlainView(out));
  }
}
