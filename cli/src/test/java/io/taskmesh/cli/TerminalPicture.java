package io.taskmesh.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A captured terminal screen drawn as a PNG (for the README) by headless Chromium: the text in a
 * dark monospace page, screenshotted at its size. No image library: the browser the dashboard test
 * needs anyway does the drawing.
 */
final class TerminalPicture {
  private static final int LINE_PX = 18;
  private static final int CHAR_PX = 9;

  private TerminalPicture() {}

  static void render(String screen, Path png) throws Exception {
    Path chromium = TestTools.require("chromium", "chromium");
    String[] lines = screen.split("\n", -1);
    int columns = 0;
    for (String line : lines) {
      columns = Math.max(columns, line.length());
    }
    Path html = Files.createTempFile("terminal", ".html");
    Files.writeString(
        html,
        "<!doctype html><meta charset=utf-8><style>body{margin:0;background:#1d2330}"
            + "pre{margin:0;padding:12px 16px;color:#e8ecf4;font:15px/"
            + LINE_PX
            + "px monospace}</style><pre>"
            + escape(screen)
            + "</pre>");
    Process p =
        new ProcessBuilder(
                chromium.toString(),
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--screenshot=" + png.toAbsolutePath(),
                "--window-size=" + (columns * CHAR_PX + 48) + "," + (lines.length * LINE_PX + 24),
                html.toUri().toString())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0 || !Files.exists(png)) {
      p.destroyForcibly();
      throw new IllegalStateException("chromium could not draw " + png);
    }
    Files.delete(html);
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
