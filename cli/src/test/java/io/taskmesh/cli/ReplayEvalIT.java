package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.Await;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.schemas.Topics;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.zip.CRC32;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * replay-eval on the shared examples stack, all real: shout tasks run live, then the {@code upper}
 * actor's envelopes are replayed through candidates of {@code examples/candidates}. The candidate
 * that lower-cases one word in ten (by CRC-32) is reported different on exactly the envelopes with
 * such a word; candidates that raise, hang, answer garbage or crash show up only in the report; the
 * gate exits 1 when it fails and 2 when it cannot be read; and the live pipeline (its consumer
 * groups' offsets, its topics' end offsets, the task views) is the same after every replay.
 */
@ExtendWith(SharedExamples.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ReplayEvalIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final int TASKS = 30;
  private static final List<String> PIPELINE = List.of("upper", "reverse", "count");

  @TempDir static Path data;
  private static DevStack stack;
  private static String fromOffset;
  private static String countFromOffset;
  private static long afterSetup;
  private static final Map<String, String> liveDuringReplay =
      new java.util.concurrent.ConcurrentHashMap<>();
  private static final Map<String, String> texts = new HashMap<>();
  private static Admin admin;

  /** What the live pipeline looked like before the misbehaving candidates ran. */
  private static Snapshot before;

  @BeforeAll
  static void runShoutTasks() throws Exception {
    stack = SharedExamples.stack();
    admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, (Object) stack.kafkaBootstrap()));
    // only this class's envelopes: from the upper topic's ends before its tasks
    fromOffset = fromOffsets("upper");
    countFromOffset = fromOffsets("count");
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < TASKS; i++) {
      String text = "task" + i + " alpha" + i + " beta" + (i * 7) + " gamma" + (i * 13);
      String id = callShout(text);
      texts.put(id, text);
      ids.add(id);
    }
    for (String id : ids) {
      assertThat(awaitFinal(id).path("status").asText()).isEqualTo("succeeded");
    }
    // every record of these tasks was written before this instant
    afterSetup = System.currentTimeMillis();
  }

  /** {@code partition:end,...} of the actor's topic now: replay only what comes after. */
  private static String fromOffsets(String actor) throws Exception {
    return endOffsets(List.of(topic(actor))).entrySet().stream()
        .map(e -> e.getKey().partition() + ":" + e.getValue())
        .collect(Collectors.joining(","));
  }

  @AfterAll
  static void closeAdmin() {
    if (admin != null) {
      admin.close();
    }
  }

  @Test
  @Order(1)
  void aCandidateThatLowerCasesOneWordInTenIsDifferentOnExactlyThoseEnvelopes() throws Exception {
    // live traffic while the replay runs: its words are upper-cased by both, so whichever of these
    // envelopes the replay reads are equal (or not yet answered live)
    CompletableFuture<Map<String, String>> live =
        CompletableFuture.supplyAsync(
            () -> {
              Map<String, String> ids = new HashMap<>();
              for (int i = 0; i < 5; i++) {
                String text = wordsNotLowered(5, "live" + i);
                ids.put(callShout(text), text);
              }
              liveDuringReplay.putAll(ids);
              return ids;
            });

    Answer a =
        replayEval(
            "--candidate", "upper_one_in_ten.upper", "--score", "scores.exact_match", "--json");

    assertThat(a.exit).as(a.err).isZero();
    JsonNode report = Json.MAPPER.readTree(Path.of(a.json().get("report").asText()).toFile());
    Map<String, JsonNode> byId = new HashMap<>();
    report.get("envelopes").forEach(e -> byId.put(e.get("id").asText(), e));
    assertThat(byId.keySet()).containsAll(texts.keySet());
    Set<String> expected = new HashSet<>();
    texts.forEach(
        (id, text) -> {
          if (java.util.Arrays.stream(text.split(" ")).anyMatch(ReplayEvalIT::lowered)) {
            expected.add(id);
          }
        });
    assertThat(expected).as("the texts must make some envelopes differ").isNotEmpty();
    Set<String> different = new HashSet<>();
    byId.forEach(
        (id, e) -> {
          String verdict = e.get("verdict").asText();
          if (verdict.equals("different")) {
            different.add(id);
            assertThat(e.get("diff")).hasSize(1);
            assertThat(e.get("diff").get(0).get("path").asText()).isEqualTo("/payload/text");
          } else if (texts.containsKey(id)) {
            assertThat(verdict).as(e.toString()).isEqualTo("equal");
          } else {
            assertThat(verdict).as(e.toString()).isIn("equal", "no_live_output");
          }
        });
    assertThat(different).isEqualTo(expected);
    JsonNode first = byId.get(expected.iterator().next());
    assertThat(first.at("/live/outputs/0/to").asText()).isEqualTo("reverse");
    assertThat(first.at("/candidate/outputs/0/to").asText()).isEqualTo("reverse");
    assertThat(a.json().at("/summary/different").asLong()).isEqualTo(expected.size());
    assertThat(a.json().at("/summary/candidate_error").asLong()).isZero();
    // the exact-match score: 0 where the texts differ, 1 where they are equal
    long paired = a.json().at("/summary/equal").asLong() + expected.size();
    assertThat(a.json().at("/summary/score/mean").asDouble())
        .isCloseTo(
            1.0 - (double) expected.size() / paired, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(byId.get(expected.iterator().next()).get("score").asDouble()).isZero();
    // the live tasks ran beside it as always: the live upper, not the candidate
    for (Map.Entry<String, String> t : live.get(60, TimeUnit.SECONDS).entrySet()) {
      JsonNode task = awaitFinal(t.getKey());
      assertThat(task.path("status").asText()).isEqualTo("succeeded");
      String shouted =
          new StringBuilder(t.getValue().toUpperCase(java.util.Locale.ROOT)).reverse().toString();
      assertThat(task.toString()).contains(shouted);
    }
  }

  @Test
  @Order(2)
  void takeTheLivePipelinesPicture() throws Exception {
    before = Snapshot.take();
  }

  @Test
  @Order(3)
  void aCandidateThatRaisesIsACandidateErrorWithItsTraceback() throws Exception {
    Answer a = replayEval("--candidate", "misbehaving.raises", "--limit", "6", "--json");

    assertThat(a.exit).as(a.err).isZero();
    JsonNode report = Json.MAPPER.readTree(Path.of(a.json().get("report").asText()).toFile());
    assertThat(report.get("envelopes")).hasSize(6);
    report
        .get("envelopes")
        .forEach(
            e -> {
              assertThat(e.get("verdict").asText()).isEqualTo("candidate_error");
              assertThat(e.at("/candidate/error").asText())
                  .startsWith("ValueError: candidate refuses");
              assertThat(e.at("/candidate/traceback").asText()).contains("raise ValueError");
              assertThat(e.at("/live/outputs/0/payload/text").asText()).isNotEmpty();
            });
  }

  @Test
  @Order(3)
  void theCandidateHasTheLiveActorsOwnVariables(@TempDir Path config) throws Exception {
    // the pipeline as the examples declare it, with a variable of upper's own (an API key, a
    // model name): the candidate runs with it, as the live runtime does
    String actors =
        Files.readString(TestStacks.root().resolve("examples/actors.yaml"))
            .replace(
                "  upper:\n    handler: text.upper\n",
                "  upper:\n    handler: text.upper\n    env:\n      GREETING: hello from actors.yaml\n");
    assertThat(actors).contains("GREETING");
    // the folders are relative to the file: from here they are the repository's
    Files.writeString(
        config.resolve("actors.yaml"),
        actors.replace("dir: ../", "dir: " + TestStacks.root() + "/"));
    Files.copy(TestStacks.root().resolve("examples/flows.yaml"), config.resolve("flows.yaml"));
    Files.writeString(
        config.resolve("env_echo.py"),
        "import os\n\n\ndef upper(payload):\n"
            + "    return {\"text\": payload.get(\"text\"), \"greeting\": os.environ.get(\"GREETING\")}\n");
    Answer a =
        run(
            List.of(
                "--actor",
                "upper",
                "--candidate",
                "env_echo.upper",
                "--candidate-dir",
                config.toString(),
                "--config",
                config.toString(),
                "--no-state",
                "--from-offset",
                fromOffset,
                "--limit",
                "2",
                "--data",
                data.toString(),
                "--json"));

    assertThat(a.exit).as(a.err).isZero();
    JsonNode report = Json.MAPPER.readTree(Path.of(a.json().get("report").asText()).toFile());
    assertThat(report.get("envelopes")).hasSize(2);
    report
        .get("envelopes")
        .forEach(
            e ->
                assertThat(e.at("/candidate/outputs/0/payload/greeting").asText())
                    .as(e.toString())
                    .isEqualTo("hello from actors.yaml"));
  }

  @Test
  @Order(4)
  void aCandidateThatHangsIsCutAtThePerEnvelopeTimeout() throws Exception {
    Answer a =
        replayEval(
            "--candidate", "misbehaving.hangs", "--limit", "3", "--timeout", "500ms", "--json");

    assertThat(a.exit).as(a.err).isZero();
    assertThat(a.json().at("/summary/candidate_error").asLong()).isEqualTo(3);
    JsonNode report = Json.MAPPER.readTree(Path.of(a.json().get("report").asText()).toFile());
    report
        .get("envelopes")
        .forEach(e -> assertThat(e.at("/candidate/error").asText()).startsWith("timed out"));
  }

  @Test
  @Order(5)
  void garbageAndACrashingRuntimeAreCandidateErrorsToo() throws Exception {
    for (String handler : List.of("misbehaving.garbage", "misbehaving.crashes")) {
      Answer a = replayEval("--candidate", handler, "--limit", "2", "--concurrency", "1", "--json");

      assertThat(a.exit).as(a.err).isZero();
      assertThat(a.json().at("/summary/candidate_error").asLong()).as(handler).isEqualTo(2);
      assertThat(a.json().at("/summary/total").asLong()).isEqualTo(2);
    }
  }

  @Test
  @Order(6)
  void aFailedGateExitsOneAndTheTableSaysWhy() {
    Answer a =
        replayEval(
            "--candidate",
            "upper_one_in_ten.upper",
            "--fail-if",
            "different > 1% or candidate_errors > 0");

    assertThat(a.exit).as(a.err).isEqualTo(1);
    assertThat(a.out)
        .contains("ENVELOPE", "different", "/payload/text", "gate FAILED: different is");
  }

  @Test
  @Order(7)
  void anUnreadableGateExitsTwoWithOneLineAndRunsNothing() {
    Answer a = replayEval("--candidate", "upper_one_in_ten.upper", "--fail-if", "different >");

    assertThat(a.exit).isEqualTo(2);
    assertThat(a.err.strip())
        .isEqualTo(
            "replay-eval: --fail-if: the gate ends where a number after different > was expected");
    assertThat(a.out).isEmpty();
  }

  @Test
  @Order(9)
  void theLivePipelineIsAsItWasBeforeTheReplays() throws Exception {
    assertThat(before).as("the picture is taken by an earlier test").isNotNull();
    Snapshot after = Snapshot.take();

    assertThat(after.groupOffsets).isEqualTo(before.groupOffsets);
    assertThat(after.endOffsets).isEqualTo(before.endOffsets);
    assertThat(after.tasks).isEqualTo(before.tasks);
  }

  @Test
  @Order(10)
  void anActorWhoseOutputGoesToXSinkIsPairedWithThatOutputOnly() throws Exception {
    // count ends the shout route: its output goes to x-sink, which forwards it to x-sump unchanged
    Answer a =
        run(
            List.of(
                "--actor",
                "count",
                "--candidate",
                "text.count",
                "--candidate-dir",
                TestStacks.root().resolve("runtime/examples").toString(),
                "--from-offset",
                countFromOffset,
                "--data",
                data.toString(),
                "--json"));

    assertThat(a.exit).as(a.err).isZero();
    JsonNode report = Json.MAPPER.readTree(Path.of(a.json().get("report").asText()).toFile());
    Map<String, JsonNode> byId = new HashMap<>();
    report.get("envelopes").forEach(e -> byId.put(e.get("id").asText(), e));
    assertThat(byId.keySet()).containsAll(texts.keySet());
    for (String id : texts.keySet()) {
      JsonNode e = byId.get(id);
      assertThat(e.get("verdict").asText()).as(e.toString()).isEqualTo("equal");
      assertThat(e.at("/live/outputs")).as(e.toString()).hasSize(1);
      assertThat(e.at("/live/outputs/0/to").asText()).isEqualTo("x-sink");
      assertThat(e.at("/candidate/outputs/0/to").asText()).isEqualTo("x-sink");
    }
  }

  @Test
  @Order(11)
  void flowKeepsOnlyTheEnvelopesOfThatFlowsRoute() throws Exception {
    Answer shout = replayEval("--candidate", "upper_one_in_ten.upper", "--flow", "shout", "--json");
    assertThat(shout.exit).as(shout.err).isZero();
    assertThat(reportIds(shout)).containsAll(texts.keySet());

    // upper starts no other flow: the flow echo keeps nothing of its topic
    Answer echo = replayEval("--candidate", "upper_one_in_ten.upper", "--flow", "echo", "--json");
    assertThat(echo.exit).as(echo.err).isZero();
    assertThat(echo.json().at("/summary/total").asLong()).isZero();

    Answer unknown = replayEval("--candidate", "upper_one_in_ten.upper", "--flow", "nosuch");
    assertThat(unknown.exit).isEqualTo(2);
    assertThat(unknown.err.strip()).startsWith("replay-eval: no flow 'nosuch' in ");
  }

  @Test
  @Order(12)
  void sinceStartsAtTheFirstRecordOfThatWindow() throws Exception {
    assertThat(liveDuringReplay).as("the first test sends them").isNotEmpty();
    List<String> common =
        List.of(
            "--actor",
            "upper",
            "--candidate",
            "upper_one_in_ten.upper",
            "--candidate-dir",
            TestStacks.root().resolve("examples/candidates").toString(),
            "--data",
            data.toString(),
            "--json");

    List<String> wide = new ArrayList<>(common);
    wide.addAll(List.of("--since", "1h"));
    Answer all = run(wide);
    assertThat(all.exit).as(all.err).isZero();
    assertThat(reportIds(all)).containsAll(texts.keySet()).containsAll(liveDuringReplay.keySet());

    // a window that starts after the setup's tasks: only the envelopes sent since, by test 1
    List<String> narrow = new ArrayList<>(common);
    narrow.addAll(List.of("--since", (System.currentTimeMillis() - afterSetup) + "ms"));
    Answer recent = run(narrow);
    assertThat(recent.exit).as(recent.err).isZero();
    Set<String> ids = reportIds(recent);
    assertThat(ids).doesNotContainAnyElementsOf(texts.keySet());
    assertThat(ids).containsAll(liveDuringReplay.keySet());
  }

  private static Set<String> reportIds(Answer a) throws Exception {
    JsonNode report = Json.MAPPER.readTree(Path.of(a.json().get("report").asText()).toFile());
    Set<String> ids = new HashSet<>();
    report.get("envelopes").forEach(e -> ids.add(e.get("id").asText()));
    return ids;
  }

  @Test
  @Order(13)
  void aCandidateWritingStateOnlyChangesKeysUnderItsScratchPrefix() throws Exception {
    // the words flow's cache actor keeps files on a state mount of dev's local S3 server
    String cacheFrom = fromOffsets("cache");
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ids.add(callTool("words", "{\"text\":\"state" + i + " replay eval state\"}"));
    }
    for (String id : ids) {
      assertThat(awaitFinal(id).path("status").asText()).isEqualTo("succeeded");
    }
    String bucket = "taskmesh-cache";
    Map<String, String> liveBefore = objects(bucket);
    assertThat(liveBefore.keySet()).anyMatch(k -> k.startsWith("examples/hits/"));

    Answer a =
        run(
            List.of(
                "--actor",
                "cache",
                "--candidate",
                "cache.word_counts",
                "--candidate-dir",
                TestStacks.root().resolve("runtime/examples").toString(),
                "--from-offset",
                cacheFrom,
                "--data",
                stack.stateProxy().dataDir().toString(),
                "--json"));

    assertThat(a.exit).as(a.err).isZero();
    assertThat(a.json().at("/summary/total").asLong()).isEqualTo(3);
    assertThat(a.json().at("/summary/candidate_error").asLong()).isZero();
    String scratch = "replay-eval/" + a.json().get("id").asText() + "/examples/";
    Map<String, String> after = objects(bucket);
    Map<String, String> liveAfter = new TreeMap<>(after);
    liveAfter.keySet().removeIf(k -> k.startsWith("replay-eval/"));
    assertThat(liveAfter).as("the live keys and their contents").isEqualTo(liveBefore);
    Set<String> added = new HashSet<>(after.keySet());
    added.removeAll(liveBefore.keySet());
    assertThat(added).isNotEmpty().allMatch(k -> k.startsWith(scratch));
    // the candidate saw an empty scratch prefix, not the live cache: a miss, one hit each
    JsonNode report = Json.MAPPER.readTree(Path.of(a.json().get("report").asText()).toFile());
    assertThat(report.at("/state/0/scratch_prefix").asText()).isEqualTo(scratch);
    report
        .get("envelopes")
        .forEach(
            e -> assertThat(e.at("/candidate/outputs/0/payload/cached").asBoolean()).isFalse());
  }

  @Test
  @Order(14)
  void noStateRunsTheCandidateWithoutMounts() {
    Answer a =
        run(
            List.of(
                "--actor",
                "cache",
                "--candidate",
                "cache.word_counts",
                "--candidate-dir",
                TestStacks.root().resolve("runtime/examples").toString(),
                "--limit",
                "1",
                "--no-state",
                "--data",
                data.toString(),
                "--json"));

    assertThat(a.exit).as(a.err).isZero();
    // no /state/cache: the handler's open() fails, which only the report shows
    assertThat(a.json().at("/summary/candidate_error").asLong()).isEqualTo(1);
  }

  @Test
  @Order(15)
  void killingReplayEvalWithNineTakesItsStateConnectorsAlong() throws Exception {
    String cacheFrom = fromOffsets("cache");
    String id = callTool("words", "{\"text\":\"killed replay\"}");
    assertThat(awaitFinal(id).path("status").asText()).isEqualTo("succeeded");
    Path log = data.resolve("replay-eval-killed.log");
    Map<String, String> env =
        Map.of("TASKMESH_HOME", TestStacks.root().toString(), "SVC_NAMESPACE", stack.namespace());
    try (io.taskmesh.devkit.ChildJvm replay =
        io.taskmesh.devkit.ChildJvm.start(
            Main.class.getName(),
            List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
            List.of(
                "replay-eval",
                "--actor",
                "cache",
                "--candidate",
                "misbehaving.hangs",
                "--candidate-dir",
                TestStacks.root().resolve("examples/candidates").toString(),
                "--timeout",
                "10m",
                "--from-offset",
                cacheFrom,
                "--kafka",
                stack.kafkaBootstrap(),
                "--data",
                stack.stateProxy().dataDir().toString()),
            env,
            log)) {
      // the candidate hangs on its envelope: the connector runs until replay-eval goes
      ProcessHandle connector =
          Await.until(
              () ->
                  ProcessHandle.of(replay.pid()).stream()
                      .flatMap(ProcessHandle::descendants)
                      .filter(h -> commandLine(h).contains(" connector objstore-"))
                      .findFirst()
                      .orElse(null),
              c -> c != null || !replay.isAlive(),
              Duration.ofSeconds(120),
              "replay-eval started no state connector");
      assertThat(connector).as(java.nio.file.Files.readString(log)).isNotNull();
      Await.until(
          () -> java.nio.file.Files.readString(log).contains("replaying..."),
          Duration.ofSeconds(120),
          "replay-eval never started replaying");
      // the candidate runtime starts once every connector's pid is with the watchdog: killed
      // earlier, between a connector's start and that hand-over, the connector is nobody's
      Await.until(
          () ->
              ProcessHandle.of(replay.pid()).stream()
                  .flatMap(ProcessHandle::descendants)
                  .anyMatch(h -> commandLine(h).contains("taskmesh_runtime")),
          Duration.ofSeconds(120),
          "replay-eval started no candidate runtime");

      List<ProcessHandle> children =
          ProcessHandle.of(replay.pid()).stream().flatMap(ProcessHandle::descendants).toList();
      // the scratch folder (the connector's socket is in it): a kill -9 leaves it, as documented
      Path scratch =
          java.util.Arrays.stream(
                  java.nio.file.Files.readString(
                          Path.of("/proc", Long.toString(connector.pid()), "environ"))
                      .split("\0"))
              .filter(v -> v.startsWith("CONNECTOR_SOCKET="))
              .map(v -> Path.of(v.substring("CONNECTOR_SOCKET=".length())).getParent().getParent())
              .findFirst()
              .orElseThrow();
      assertThat(scratch.getFileName().toString()).startsWith("taskmesh-eval-");

      replay.kill9();

      Await.until(
          () -> !connector.isAlive(),
          Duration.ofSeconds(60),
          "the state connector outlived a replay-eval killed with -9");
      // nor anything else it started: the candidate runtime, the watchdog
      Await.until(
          () ->
              children.stream()
                  .filter(ProcessHandle::isAlive)
                  .map(h -> h.pid() + " " + commandLine(h))
                  .toList(),
          List::isEmpty,
          Duration.ofSeconds(60),
          "a child outlived a replay-eval killed with -9");
      assertThat(scratch).exists();
      try (var files = java.nio.file.Files.walk(scratch)) {
        for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
          java.nio.file.Files.delete(f);
        }
      }
    }
  }

  /** The process's arguments as one line ({@code /proc/<pid>/cmdline}); empty when it is gone. */
  private static String commandLine(ProcessHandle h) {
    try {
      return new String(
              java.nio.file.Files.readAllBytes(Path.of("/proc", Long.toString(h.pid()), "cmdline")),
              StandardCharsets.UTF_8)
          .replace('\0', ' ');
    } catch (java.io.IOException e) {
      return "";
    }
  }

  /** Key to ETag of every object in the bucket of dev's local S3 server. */
  private static Map<String, String> objects(String bucket) {
    Map<String, String> out = new TreeMap<>();
    try (software.amazon.awssdk.services.s3.S3Client s3 =
        software.amazon.awssdk.services.s3.S3Client.builder()
            .endpointOverride(URI.create(stack.stateProxy().localS3Endpoint().orElseThrow()))
            .region(software.amazon.awssdk.regions.Region.US_EAST_1)
            .forcePathStyle(true)
            .credentialsProvider(
                software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                    software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(
                        LocalS3.ACCESS_KEY, LocalS3.SECRET_KEY)))
            .build()) {
      s3.listObjectsV2Paginator(b -> b.bucket(bucket))
          .contents()
          .forEach(o -> out.put(o.key(), o.eTag()));
    }
    return out;
  }

  /** Consumer group offsets, topic end offsets and task views of the live pipeline. */
  private record Snapshot(
      Map<String, Map<TopicPartition, OffsetAndMetadata>> groupOffsets,
      Map<TopicPartition, Long> endOffsets,
      Map<String, String> tasks) {
    static Snapshot take() throws Exception {
      Map<String, Map<TopicPartition, OffsetAndMetadata>> groups = new TreeMap<>();
      for (String actor : PIPELINE) {
        groups.put(
            actor,
            admin
                .listConsumerGroupOffsets(topic(actor))
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS));
      }
      List<String> topics = new ArrayList<>();
      PIPELINE.forEach(a -> topics.add(topic(a)));
      topics.add(topic(Topics.SINK));
      topics.add(Topics.taskEvents(stack.namespace()));
      Map<String, String> tasks = new TreeMap<>();
      for (String id : texts.keySet()) {
        tasks.put(id, getJson("/tasks/" + id).toString());
      }
      return new Snapshot(groups, ReplayEvalIT.endOffsets(topics), tasks);
    }
  }

  private record Answer(int exit, String out, String err) {
    JsonNode json() {
      try {
        return Json.MAPPER.readTree(out);
      } catch (java.io.IOException e) {
        throw new AssertionError("not JSON: " + out + "\nstderr: " + err, e);
      }
    }
  }

  private static Answer replayEval(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(
        List.of(
            "--actor",
            "upper",
            "--candidate-dir",
            TestStacks.root().resolve("examples/candidates").toString(),
            "--from-offset",
            fromOffset,
            "--data",
            data.toString()));
    return run(all);
  }

  /** replay-eval with these options and the stack's Kafka and namespace, nothing else. */
  private static Answer run(List<String> args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Map<String, String> env = new HashMap<>();
    env.put("TASKMESH_HOME", TestStacks.root().toString());
    env.put("SVC_NAMESPACE", stack.namespace());
    List<String> all = new ArrayList<>(args);
    all.addAll(List.of("--kafka", stack.kafkaBootstrap()));
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      int exit =
          new CommandLine(new ReplayEvalCommand(env, o, e)).execute(all.toArray(new String[0]));
      return new Answer(
          exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
  }

  /** What upper_one_in_ten lower-cases: a word whose CRC-32 is 0 mod 10. */
  static boolean lowered(String word) {
    CRC32 c = new CRC32();
    c.update(word.getBytes(StandardCharsets.UTF_8));
    return c.getValue() % 10 == 0;
  }

  /** {@code n} words ending in {@code suffix} that the candidate upper-cases as the live actor. */
  private static String wordsNotLowered(int n, String suffix) {
    List<String> words = new ArrayList<>();
    for (int i = 0; words.size() < n; i++) {
      String w = suffix + "w" + i;
      if (!lowered(w)) {
        words.add(w);
      }
    }
    return String.join(" ", words);
  }

  private static String topic(String actor) {
    return Topics.actorQueue(stack.namespace(), actor);
  }

  private static Map<TopicPartition, Long> endOffsets(List<String> topics) throws Exception {
    Map<TopicPartition, OffsetSpec> query = new HashMap<>();
    var described = admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS);
    described.forEach(
        (name, d) ->
            d.partitions()
                .forEach(
                    p -> query.put(new TopicPartition(name, p.partition()), OffsetSpec.latest())));
    Map<TopicPartition, Long> out =
        new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
    admin
        .listOffsets(query)
        .all()
        .get(30, TimeUnit.SECONDS)
        .forEach((tp, info) -> out.put(tp, info.offset()));
    return out;
  }

  private static JsonNode awaitFinal(String id) {
    return Await.until(
        () -> getJson("/tasks/" + id),
        t -> TaskStatus.fromWire(t.path("status").asText()).isFinal(),
        Duration.ofSeconds(60),
        "task " + id + " never ended");
  }

  private static String callShout(String text) {
    return callTool("shout", "{\"text\":\"" + text + "\"}");
  }

  private static String callTool(String name, String arguments) {
    try {
      HttpResponse<String> r =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(stack.gatewayUrl() + "/tools/call"))
                  .header("Content-Type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"name\":\"" + name + "\",\"arguments\":" + arguments + "}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      JsonNode result = Json.MAPPER.readTree(r.body());
      return Json.MAPPER
          .readTree(result.get("content").get(0).get("text").asText())
          .get("task_id")
          .asText();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static JsonNode getJson(String path) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(stack.gatewayUrl() + path)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return Json.MAPPER.readTree(r.body());
  }
}
