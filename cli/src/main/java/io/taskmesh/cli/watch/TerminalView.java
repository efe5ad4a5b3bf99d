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
import org.jline.utils.InfoCmp.Capability;

/**
 * The live view on a terminal: the bars are a block drawn right below the output and redrawn in
 * place, while FLY tokens and notes are written above the block and scroll like any output.
 *
 * <p>Not JLine's {@code Status}: it reserves the bottom rows with a scroll region, and each time
 * that area grows it scrolls the screen and moves the cursor back with cursor-up, which on
 * terminals where cursor-up is a reverse index (tmux/screen) scrolls the lines near the top out of
 * view when the output started high on the screen (after {@code clear}), and it splits a token line
 * that is still open. Redrawing a block under the cursor needs only cursor-up and clear-to-end,
 * keeps everything on the screen in order and leaves no scroll region behind when interrupted.
 */
public final class TerminalView implements TaskView {
  private final Terminal terminal;
  private final PrintWriter out;

  /** The token line not ended yet: part of the block until a newline (or the width) ends it. */
  private final StringBuilder openLine = new StringBuilder();

  private List<AttributedString> bars = List.of();

  /** Rows from the block's first row down to the cursor's row. */
  private int blockRows;

  private TerminalView(Terminal terminal) {
    this.terminal = terminal;
    this.out = terminal.writer();
  }

  /** The live view when standard output is a terminal that can redraw lines, else empty. */
  // built for Java 17, where a null console is how the JDK says "not a terminal"; JLine checks
  // again below
  @SuppressWarnings("SystemConsoleNull")
  public static Optional<TaskView> open() {
    if (System.console() == null) {
      return Optional.empty();
    }
    try {
      Terminal terminal = TerminalBuilder.builder().system(true).dumb(false).build();
      if (Terminal.TYPE_DUMB.equals(terminal.getType()) || !canRedraw(terminal)) {
        terminal.close();
        return Optional.empty();
      }
      return Optional.of(new TerminalView(terminal));
    } catch (IOException | IllegalStateException e) {
      return Optional.empty();
    }
  }

  private static boolean canRedraw(Terminal terminal) {
    return terminal.getStringCapability(Capability.clr_eos) != null
        && (terminal.getStringCapability(Capability.parm_up_cursor) != null
            || terminal.getStringCapability(Capability.cursor_up) != null);
  }

  @Override
  public void update(TaskProgress progress, JsonNode update) {
    AttributedStyle style =
        AttributedStyle.DEFAULT.foreground(
            progress.status().equals("failed") ? AttributedStyle.RED : AttributedStyle.CYAN);
    bars = ProgressLines.bars(progress).stream().map(l -> new AttributedString(l, style)).toList();
    erase();
    draw();
  }

  @Override
  public void token(String text) {
    erase();
    openLine.append(text.replace("\r", "").replace('\t', ' '));
    for (int nl = openLine.indexOf("\n"); nl >= 0; nl = openLine.indexOf("\n")) {
      out.println(openLine.substring(0, nl));
      openLine.delete(0, nl + 1);
    }
    // full rows of a long line leave the block, so the block never outgrows the screen
    int columns = columns();
    AttributedString open = new AttributedString(openLine);
    if (open.columnLength() > columns) {
      int keep = open.columnLength() - (open.columnLength() - 1) / columns * columns;
      String done = open.columnSubSequence(0, open.columnLength() - keep).toString();
      out.print(done);
      openLine.delete(0, done.length());
    }
    draw();
  }

  @Override
  public void note(String text) {
    erase();
    endOpenLine();
    out.println(text);
    draw();
  }

  @Override
  public void end(TaskProgress progress) {
    erase();
    endOpenLine();
    bars = List.of();
    for (String line : ProgressLines.bars(progress)) {
      out.println(line);
    }
    out.println(ProgressLines.ending(progress));
    out.flush();
  }

  /** Back to the block's first row, and everything from there down cleared. */
  private void erase() {
    terminal.puts(Capability.carriage_return);
    if (blockRows > 0) {
      if (terminal.getStringCapability(Capability.parm_up_cursor) != null) {
        terminal.puts(Capability.parm_up_cursor, blockRows);
      } else {
        for (int i = 0; i < blockRows; i++) {
          terminal.puts(Capability.cursor_up);
        }
      }
    }
    terminal.puts(Capability.clr_eos);
    blockRows = 0;
  }

  /** The open token line, then the bars, each cut to the width so that only the open line wraps. */
  private void draw() {
    int columns = columns();
    int openColumns = new AttributedString(openLine).columnLength();
    int openRows = openColumns == 0 ? 0 : (openColumns + columns - 1) / columns;
    out.print(openLine);
    if (bars.isEmpty()) {
      blockRows = Math.max(0, openRows - 1);
    } else {
      if (openRows > 0) {
        out.println();
      }
      for (int i = 0; i < bars.size(); i++) {
        AttributedString bar = bars.get(i);
        if (bar.columnLength() >= columns) {
          bar = bar.columnSubSequence(0, columns - 1);
        }
        out.print(bar.toAnsi(terminal));
        if (i < bars.size() - 1) {
          out.println();
        }
      }
      blockRows = openRows + bars.size() - 1;
    }
    out.flush();
  }

  private void endOpenLine() {
    if (openLine.length() > 0) {
      out.println(openLine);
      openLine.setLength(0);
    }
  }

  private int columns() {
    int width = terminal.getWidth();
    return width > 1 ? width : 80;
  }

  @Override
  public void close() {
    try {
      terminal.close();
    } catch (IOException ignored) {
      // the terminal goes away with the process
    }
  }
}
