package io.taskmesh.cli.watch;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;

/** Plain lines for output that is not a terminal (a pipe, a file, a log): no bars, no redraws. */
public final class PlainView implements TaskView {
  private final PrintWriter out;

  public PlainView(PrintWriter out) {
    this.out = out;
  }

  @Override
  public void update(TaskProgress progress, JsonNode update) {
    out.println(ProgressLines.plain(update));
    out.flush();
  }

  @Override
  public void token(String text) {
    out.println("token: " + text);
    out.flush();
  }

  @Override
  public void note(String text) {
    out.println(text);
    out.flush();
  }

  @Override
  public void end(TaskProgress progress) {
    out.println(ProgressLines.ending(progress));
    out.flush();
  }

  @Override
  public void close() {
    out.flush();
  }
}
