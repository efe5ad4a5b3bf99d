package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./taskmesh dev} as a terminal and a crash treat it, with its own broker and Postgres, a
 * runtime per actor and a state connector on a local S3 server: {@code kill -9} of the dev JVM
 * alone and of its whole session, new starts on the data a dead dev left, TERM to the group while
 * dev starts and once it runs, a start that fails early or late, and a broker that is not ready in
 * time. Ctrl-C (INT to the group) and a second dev on a data directory in use are {@link
 * LauncherClasspathIT}'s: its stack, started through the launcher, is checked for both. Bounds here
 * are hang detectors; the figures are printed, not asserted.
 */
@Timeout(value = 12, unit = TimeUnit.MINUTES)
class DevProcessGroupIT {
  private static final String READY = "Ctrl-C stops everything";

  /** Generous: a hang detector on a machine shared with other builds, not a target. */
  private static final Duration BOUND = Duration.ofSeconds(60);

  @TempDir Path dir;
  private Path config;
  private Path data;
  private final List<DevProcess> started = new ArrayList<>();

  /** Every child a dev had when ready: killed after the test whatever happened. */
  private final List<ProcStat> children = new ArrayList<>();

  @BeforeEach
  void pipeline() throws Exception {
    config = Files.createDirectories(dir.resolve("pipeline"));
    data = dir.resolve("data");
    Path handlers = TestStacks.root().resolve("runtime").resolve("examples");
    Files.writeString(
        config.resolve("flows.yaml"),
        String.join(
            "\n",
            "flows:",
            "  - name: echo",
            "    entrypoint: echo",
            "  - name: words",
            "    entrypoint: cache",
            ""));
    Files.writeString(
        config.resolve("actors.yaml"),
        String.join(
            "\n",
            "actors:",
            "  echo:",
            "    handler: echo.handle",
            "    dir: " + handlers,
            "  cache:",
            "    handler: cache.word_counts",
            "    dir: " + handlers,
            "    stateProxy:",
            "      - name: cache",
            "        mount: {path: /state/cache}",
            "        writeMode: buffered",
            "        connector:",
            "          type: objstore-buffered-cas",
            "          env:",
            "            - {name: STATE_BUCKET, value: taskmesh-cache}",
            ""));
  }

  @AfterEach
  void killLeftovers() throws Exception {
    for (DevProcess p : started) {
      p.close();
    }
    children.stream()
        .filter(c -> ProcStat.alive(c.pid(), c.startTicks()))
        .forEach(c -> ProcessHandle.of(c.pid()).ifPresent(ProcessHandle::destroyForcibly));
  }

  /**
   * Three starts on one data directory, each after a crash of the one before: {@code kill -9} of
   * the dev JVM alone (its watchdog stops its children), then of dev and its whole session at once
   * (the broker, Postgres, runtimes and connector run on with nobody to stop them, and the next dev
   * stops them before it starts its broker), then TERM to the last one's group.
   */
  @Test
  void killedDevsLeaveNothingBehindAndEachNewStartOnTheSameDataWorks() throws Exception {
    DevProcess dev = startDev(Map.of(), "dev.log");
    awaitReady(dev);
    List<ProcStat> kids = childrenOf(dev);
    assertThat(kids.size())
        .as("broker, Postgres, runtimes, connector, moto, watchdog")
        .isGreaterThan(5);

    long t0 = System.nanoTime();
    dev.kill9();
    dev.awaitNothingLeft(kids, BOUND);
    System.out.printf(
        "DevProcessGroupIT: kill -9 of dev: its %d children gone %.1f s later (load %s)%n",
        kids.size(), (System.nanoTime() - t0) / 1e9, DevProcess.loadAverage());

    // a new start on the same data after that crash works
    DevProcess again = startDev(Map.of(), "again.log");
    awaitReady(again);
    List<ProcStat> kidsAgain = childrenOf(again);
    // the worst case: dev and its watchdog both gone at once (e.g. kill -9 of the whole group by
    // hand), so the broker, Postgres, runtimes and connector all run on with nobody to stop them
    for (ProcStat member : again.sessionMembers()) {
      if (member.pid() != again.pid()) {
        ProcessHandle.of(member.pid()).ifPresent(ProcessHandle::destroyForcibly);
      }
    }
    again.kill9();
    List<ProcStat> orphans =
        kidsAgain.stream().filter(k -> ProcStat.alive(k.pid(), k.startTicks())).toList();
    assertThat(orphans.size()).as("children left running").isGreaterThan(3);

    DevProcess third = startDev(Map.of(), "third.log");
    awaitReady(third);
    assertThat(third.lines())
        .anyMatch(l -> l.startsWith("dev: stopping ") && l.contains("a dev that died left"));
    assertThat(orphans)
        .as("every process the dead dev left was stopped before the new one started")
        .noneMatch(k -> ProcStat.alive(k.pid(), k.startTicks()));
    List<ProcStat> kidsThird = childrenOf(third);
    third.signalGroup("TERM");
    assertThat(third.waitFor(BOUND.toSeconds())).as("log:\n%s", third.tail(40)).isTrue();
    assertThat(third.exitValue()).as("log:\n%s", third.tail(40)).isZero();
    third.awaitNothingLeft(kidsThird, BOUND);
    // the task view's start after a crash logs Kafka Streams' own ERROR (its stores are rebuilt,
    // as exactly-once wants); the stop must be clean
    List<String> lines = third.lines();
    assertThat(lines.subList(lines.indexOf("stopping..."), lines.size()))
        .noneMatch(DevProcessGroupIT::isError)
        .endsWith("stopped");
    assertThat(Files.readString(data.resolve("kafka").resolve("broker.log")))
        .as("never two brokers on one log directory")
        .doesNotContain("Failed to acquire lock")
        .doesNotContain("CorruptRecordException");
  }

  @Test
  void aBrokerThatIsNotReadyInTimeIsNotLeftRunning() throws Exception {
    DevProcess dev = startDev(Map.of("TASKMESH_KAFKA_READY_TIMEOUT", "1ms"), "dev.log");
    assertThat(dev.waitFor(BOUND.toSeconds())).as("log:\n%s", dev.tail(40)).isTrue();
    assertThat(dev.exitValue()).isEqualTo(1);
    assertThat(dev.lines())
        .filteredOn(l -> l.startsWith("taskmesh: "))
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .startsWith("taskmesh: dev could not start: kafka broker not ready in")
                    .doesNotContain("Exception"));
    assertThat(dev.lines()).noneMatch(l -> l.startsWith("\tat "));
    dev.awaitNothingLeft(List.of(), BOUND);
    // Postgres starts beside the broker, and pg_ctl puts it in a session of its own: the failed
    // start must stop it too
    String pgData = data.resolve("postgres").toString();
    Await.until(
        () ->
            ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().orElse("").contains(pgData))
                .map(p -> p.pid() + " " + p.info().commandLine().orElse(""))
                .toList(),
        List::isEmpty,
        BOUND,
        "no Postgres left on " + pgData);
  }

  @Test
  void aStartThatFailsLateOnAMissingClassExitsWithOneLineAndLeavesNoProcess() throws Exception {
    // the Kafka Streams jar left out: the broker, Postgres, kv-connector and mesh-api start, then
    // the gateway's task view fails with an Error, not an exception (it once escaped every catch,
    // and dev ignored TERM to its group from then on, its servers' threads keeping it alive)
    String classpath =
        Stream.of(System.getProperty("java.class.path").split(":"))
            .filter(e -> !Path.of(e).getFileName().toString().startsWith("kafka-streams"))
            .collect(Collectors.joining(":"));
    DevProcess dev = DevProcess.start(devArgs(), Map.of(), dir.resolve("missing.log"), classpath);
    started.add(dev);
    Await.until(
        () -> !dev.isAlive() || dev.lines().stream().anyMatch(l -> l.startsWith("postgres: ")),
        Duration.ofMinutes(5),
        "Postgres started");
    List<ProcStat> kids = childrenOf(dev);
    assertThat(dev.waitFor(BOUND.toSeconds())).as("log:\n%s", dev.tail(40)).isTrue();
    assertThat(dev.exitValue()).isEqualTo(1);
    assertThat(dev.lines())
        .filteredOn(l -> l.startsWith("taskmesh: "))
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .startsWith("taskmesh: dev could not start: part of taskmesh is missing")
                    .contains("org.apache.kafka.streams.KafkaStreams")
                    .doesNotContain("Error")
                    .doesNotContain("Exception"));
    assertThat(dev.lines()).noneMatch(l -> l.startsWith("\tat "));
    dev.awaitNothingLeft(kids, BOUND);
  }

  @Test
  void termToTheGroupWhileDevStartsStopsTheStartAndLeavesNoProcess() throws Exception {
    DevProcess dev = startDev(Map.of(), "dev.log");
    Await.until(
        () -> !dev.isAlive() || dev.lines().stream().anyMatch(l -> l.startsWith("postgres: ")),
        Duration.ofMinutes(5),
        "Postgres started");
    List<ProcStat> kids = childrenOf(dev);
    dev.signalGroup("TERM");
    assertThat(dev.waitFor(BOUND.toSeconds()))
        .as("dev stopped its start on TERM; log:\n%s", dev.tail(40))
        .isTrue();
    assertThat(dev.exitValue()).as("log:\n%s", dev.tail(40)).isZero();
    assertThat(dev.lines()).contains("stopped").noneMatch(l -> l.startsWith("\tat "));
    dev.awaitNothingLeft(kids, BOUND);
  }

  @Test
  void aHandlerTypoOrAnUndefinedActorIsOneLineBeforeAnythingStarts() throws Exception {
    Path actors = config.resolve("actors.yaml");
    Files.writeString(actors, Files.readString(actors).replace("echo.handle", "echo.handel"));
    DevProcess typo = startDev(Map.of(), "typo.log");
    assertThat(typo.waitFor(BOUND.toSeconds())).as("log:\n%s", typo.tail(40)).isTrue();
    assertThat(typo.exitValue()).isEqualTo(2);
    assertThat(typo.lines())
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .startsWith("taskmesh: " + actors + ": actor 'echo': ")
                    .contains("has no attribute 'handel'")
                    .contains("fix its 'handler:'"));
    assertThat(data.resolve("kafka")).doesNotExist();
    assertThat(data.resolve("postgres")).doesNotExist();

    Files.writeString(actors, Files.readString(actors).replace("echo.handel", "echo.handle"));
    Path flows = config.resolve("flows.yaml");
    Files.writeString(
        flows, Files.readString(flows).replace("entrypoint: echo", "entrypoint: ech"));
    DevProcess undefined = startDev(Map.of(), "undefined.log");
    assertThat(undefined.waitFor(BOUND.toSeconds())).isTrue();
    assertThat(undefined.exitValue()).isEqualTo(2);
    assertThat(undefined.lines())
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .startsWith("taskmesh: " + flows + ": flow 'echo' uses actor 'ech'")
                    .contains(actors.toString())
                    .contains("add it there"));
    assertThat(data.resolve("kafka")).doesNotExist();
  }

  private DevProcess startDev(Map<String, String> env, String logName) {
    DevProcess p = DevProcess.start(devArgs(), env, dir.resolve(logName));
    started.add(p);
    return p;
  }

  private List<String> devArgs() {
    return List.of(
        "--config",
        config.toString(),
        "--data",
        data.toString(),
        "--port",
        "0",
        "--mesh-port",
        "0",
        "--mesh-internal-port",
        "0");
  }

  private void awaitReady(DevProcess dev) {
    Await.until(
        () -> {
          if (!dev.isAlive()) {
            throw new AssertionError("dev exited " + dev.exitValue() + ":\n" + dev.tail(40));
          }
          return dev.lines().stream().anyMatch(l -> l.contains(READY));
        },
        Duration.ofMinutes(5),
        "dev ready");
  }

  /** dev's children now, its Postgres included. */
  private List<ProcStat> childrenOf(DevProcess dev) throws Exception {
    Path file = data.resolve("postgres").resolve("data").resolve("postmaster.pid");
    List<ProcStat> pids = dev.childrenAnd(Long.parseLong(Files.readAllLines(file).get(0).trim()));
    children.addAll(pids);
    return pids;
  }

  private static boolean isError(String line) {
    return line.contains(" ERROR ") || line.startsWith("ERROR") || line.contains("Exception");
  }
}
