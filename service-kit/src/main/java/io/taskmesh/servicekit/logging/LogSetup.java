package io.taskmesh.servicekit.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.util.Locale;
import java.util.Map;

/**
 * Logback's configuration for every taskmesh process, found by Logback through the service loader
 * (no logback.xml to keep in step across modules): one line per event on stderr, as text or, with
 * {@value #FORMAT_VAR}{@code =json}, as one JSON object per line (Logback's own {@link
 * JsonEncoder}) carrying the MDC ({@link LogContext}: task id, actor, trace id where known).
 */
public final class LogSetup extends ContextAwareBase implements Configurator {
  public static final String FORMAT_VAR = "SVC_LOG_FORMAT";

  /** Noisy at INFO and not ours: only their warnings (two of them only their errors). */
  private static final Map<String, Level> LEVELS =
      Map.of(
          "io.taskmesh", Level.INFO,
          "org.apache.kafka.clients.NetworkClient", Level.ERROR,
          "org.apache.kafka.streams.StreamsConfig", Level.ERROR);

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    String format = System.getenv(FORMAT_VAR);
    boolean json = format != null && format.trim().toLowerCase(Locale.ROOT).equals("json");
    if (format != null && !json && !format.trim().equalsIgnoreCase("text") && !format.isBlank()) {
      // a typo must not silently give text: say so once, in the format that is used
      System.err.println(FORMAT_VAR + ": '" + format + "' is neither text nor json; using text");
    }
    ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
    console.setContext(context);
    console.setName("console");
    console.setTarget("System.err");
    console.setEncoder(json ? jsonEncoder(context) : textEncoder(context));
    console.start();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.WARN);
    root.addAppender(console);
    LEVELS.forEach((name, level) -> context.getLogger(name).setLevel(level));
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  static Encoder<ILoggingEvent> jsonEncoder(LoggerContext context) {
    JsonEncoder e = new JsonEncoder();
    e.setContext(context);
    // the event, its MDC and its throwable; not the logger context, the unformatted message
    // template with its arguments, nor the sequence and nanosecond counters
    e.setWithSequenceNumber(false);
    e.setWithNanoseconds(false);
    e.setWithContext(false);
    e.setWithArguments(false);
    e.setWithMessage(false);
    e.setWithFormattedMessage(true);
    e.start();
    return e;
  }

  private static Encoder<ILoggingEvent> textEncoder(LoggerContext context) {
    PatternLayoutEncoder e = new PatternLayoutEncoder();
    e.setContext(context);
    e.setPattern("%d{yyyy-MM-dd HH:mm:ss.SSS} [%thread] %level %logger - %msg%n");
    e.start();
    return e;
  }
}
