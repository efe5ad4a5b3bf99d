package io.taskmesh.servicekit;

import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Whether a text meant for a client gives away the code behind it: a Java class or package name, an
 * exception type, a stack frame, a library switch. Error texts are written in our own words; this
 * check keeps a library's message from slipping through (and the bad-input sweeps use it to grep
 * every answer).
 */
public final class ClientText {
  private static final List<Pattern> INTERNAL =
      List.of(
          // a package-qualified name: java.util.ArrayList, io.taskmesh.unixhttp.X, com.fasterxml...
          Pattern.compile("\\b(?:java|javax|jakarta|sun|jdk|com|org|io|net|kotlin)\\.[a-z_]+\\."),
          // an exception type, or an inner class (Outer$Inner)
          Pattern.compile("[A-Za-z]Exception\\b"),
          Pattern.compile("[A-Za-z0-9]\\$[A-Z]"),
          // a stack frame
          Pattern.compile("\\.java:\\d+"),
          Pattern.compile("(?m)^\\s*at [a-z]+\\.[a-z]"),
          // a library's feature switch or getter: JsonReadFeature.ALLOW_X, getMaxNestingDepth()
          Pattern.compile("\\b[A-Z][A-Za-z]+\\.[A-Z][A-Z_]{2,}\\b"),
          Pattern.compile("\\b(?:get|is)[A-Z][A-Za-z]+\\(\\)"),
          Pattern.compile("StreamReadConstraints|JsonReadFeature|JsonParser|ObjectMapper"));

  private ClientText() {}

  /** True when {@code text} shows nothing of the code behind it (null is clean). */
  public static boolean isClean(String text) {
    return leak(text).isEmpty();
  }

  /** The first part of {@code text} that names the code behind it, if any. */
  public static Optional<String> leak(String text) {
    if (text == null) {
      return Optional.empty();
    }
    for (Pattern p : INTERNAL) {
      var m = p.matcher(text);
      if (m.find()) {
        return Optional.of(m.group());
      }
    }
    return Optional.empty();
  }
}
