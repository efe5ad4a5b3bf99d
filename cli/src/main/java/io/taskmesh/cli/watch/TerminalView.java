package io.taskmesh.cli.watch;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStyle;
import org.jline.utils.Status;

/**
 * The live view on a terminal: the bars sit in JLine's {@link Status} area at the bottom of the
 * screen and are redrawn in place, while FLY tokens are written above them and scroll like any
 * output, so streamed text and bars never overwrite each other.
 */
public final class TerminalView implements TaskView {
  private final Terminal terminal;
  private final Status status;
  private final PrintWriter out;
  private boolean midLine;

  private TerminalView(Terminal terminal, Status status) {
    this.terminal = terminal;
    this.status = status;
    this.out = terminal.writer();
  }

  /** The live view when standard output is a terminal that can hold a status area, else empty. */
  public static Optional<TaskView> open() {
    if (System.console() == null) {
      return Optional.empty();
    }
    try {
      Terminal terminal = TerminalBuilder.builder().system(true).dumb(false).build();
      Status status = Status.getStatus(terminal);
      if (status == null || Terminal.TYPE_DUMB.equals(terminal.getType())) {
        terminal.close();
        return Optional.empty();
      }
      return Optional.of(new TerminalView(terminal, status));
    } catch (IOException | IllegalStateException e) {
      return Optional.empty();
    }
  }

  @Override
  public void update(TaskProgress progress, JsonNode update) {
    draw(progress);
  }

  @Override
  public void token(String text) {
    out.print(text);
    out.flush();
    midLine = !text.endsWith("\n");
  }

  @Override
  public void note(String text) {
    endLine();
    out.println(text);
    out.flush();
  }

  @Override
  public void end(TaskProgress progress) {
    endLine();
    status.update(List.of());
    for (String line : ProgressLines.bars(progress)) {
      out.println(line);
    }
    out.println(ProgressLines.ending(progress));
    out.flush();
  }

  private void draw(TaskProgress progress) {
    List<String> lines = ProgressLines.bars(progress);
    AttributedStyle style = AttributedStyle.DEFAULT.foreground(progress.status().equals("failed")
        ? AttributedStyle.RED : AttributedStyle.CYAN);
    status.update(lines.stream().map(l -> new AttributedString(l, style)).toList());
    terminal.flush();
  }

  private void endLine() {
    if (midLine) {
      out.println();
      midLine = false;
    }
  }

  @Override
  public void close() {
    try {
      status.close();
      terminal.close();
    } catch (IOException ignored) {
      // the terminal goes away with the process
    }
  }
}
