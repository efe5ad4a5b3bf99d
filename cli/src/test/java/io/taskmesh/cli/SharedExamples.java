package io.taskmesh.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One dev stack of the bundled examples for every IT of the JVM that uses them unchanged and
 * anonymously: a stack of twelve actors costs tens of seconds of CPU to start and to stop, and
 * these ITs only start tasks of their own and read them back, so each starting its own stack only
 * cost CI time. It starts with the first such class and stops when the test run ends (JUnit closes
 * the root store before the JVM's shutdown hooks stop the shared broker). An IT that changes the
 * stack (kills a part, needs an API key, counts a registry from zero) keeps a stack of its own.
 */
final class SharedExamples implements BeforeAllCallback {
  private static volatile DevStack stack;

  @Override
  public void beforeAll(ExtensionContext context) {
    stack =
        context
            .getRoot()
            .getStore(ExtensionContext.Namespace.GLOBAL)
            .getOrComputeIfAbsent(SharedExamples.class, k -> new Running(), Running.class)
            .stack;
  }

  /** The shared stack; only in a class extended with this. */
  static DevStack stack() {
    if (stack == null) {
      throw new IllegalStateException("annotate the class with @ExtendWith(SharedExamples.class)");
    }
    return stack;
  }

  /** Closed by JUnit at the end of the run (values of its store that are AutoCloseable are). */
  private static final class Running implements AutoCloseable {
    final DevStack stack;

    Running() {
      try {
        stack =
            TestStacks.onSharedBroker(
                TestStacks.root().resolve("examples"),
                Files.createTempDirectory("taskmesh-examples"),
                "examples");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void close() {
      stack.close();
    }
  }
}
