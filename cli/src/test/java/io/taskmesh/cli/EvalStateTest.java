package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.taskmesh.cli.eval.EvalFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EvalStateTest {
  @TempDir Path data;

  private static ActorSpec actor(String name, StateMount... mounts) {
    return new ActorSpec(name, "m.f", Path.of("."), Map.of(), List.of(mounts));
  }

  private static StateMount objstore(String name, Map<String, String> env) {
    return new StateMount(name, "/state/" + name, "buffered", "objstore-buffered-cas", env);
  }

  private void devBackends() throws Exception {
    Path f = data.resolve(DevStateProxy.LOCAL_BACKENDS);
    Files.createDirectories(f.getParent());
    Files.writeString(
        f,
        "{\"objstore\":{\"endpoint\":\"http://127.0.0.1:1234\",\"region\":\"us-east-1\","
            + "\"access_key_id\":\"k\",\"secret_access_key\":\"s\"}}");
  }

  @Test
  void eachMountMovesToAScratchPrefixOfTheSameBucket() throws Exception {
    devBackends();
    ActorSpec cache =
        actor(
            "cache", objstore("cache", Map.of("STATE_BUCKET", "b1", "STATE_PREFIX", "examples/")));
    EvalState state = new EvalState(cache, List.of(cache), data);

    List<Map<String, Object>> plan = state.plan("cache-1");

    assertThat(plan).hasSize(1);
    assertThat(plan.get(0))
        .containsEntry("bucket", "b1")
        .containsEntry("live_prefix", "examples/")
        .containsEntry("scratch_prefix", "replay-eval/cache-1/examples/");
  }

  @Test
  void aScratchPrefixThatCouldHoldLiveKeysIsRefusedWithExitTwo() throws Exception {
    devBackends();
    // an empty live prefix: every key of the bucket is live, the scratch ones too
    ActorSpec bare = actor("bare", objstore("files", Map.of("STATE_BUCKET", "b1")));
    assertThatThrownBy(() -> new EvalState(bare, List.of(bare), data).plan("bare-1"))
        .isInstanceOfSatisfying(EvalFailure.class, e -> assertThat(e.exitCode()).isEqualTo(2))
        .hasMessageContaining("could hold live keys of bare/files")
        .hasMessageContaining("--no-state");

    // another actor's mount on the same bucket reads every key: refused as well
    ActorSpec cache =
        actor("cache", objstore("cache", Map.of("STATE_BUCKET", "b1", "STATE_PREFIX", "c/")));
    ActorSpec all = actor("all", objstore("all", Map.of("STATE_BUCKET", "b1", "STATE_PREFIX", "")));
    assertThatThrownBy(() -> new EvalState(cache, List.of(cache, all), data).plan("cache-1"))
        .isInstanceOfSatisfying(EvalFailure.class, e -> assertThat(e.exitCode()).isEqualTo(2))
        .hasMessageContaining("could hold live keys of all/all");

    // ... but not when it is on another bucket
    ActorSpec elsewhere =
        actor("all", objstore("all", Map.of("STATE_BUCKET", "b2", "STATE_PREFIX", "")));
    assertThat(new EvalState(cache, List.of(cache, elsewhere), data).plan("cache-1")).hasSize(1);
  }

  @Test
  void aMountOnDevsLocalBackendNeedsDevsFile() {
    ActorSpec cache =
        actor("cache", objstore("cache", Map.of("STATE_BUCKET", "b1", "STATE_PREFIX", "c/")));
    assertThatThrownBy(() -> new EvalState(cache, List.of(cache), data).plan("cache-1"))
        .isInstanceOfSatisfying(EvalFailure.class, e -> assertThat(e.exitCode()).isEqualTo(2))
        .hasMessageContaining("local-backends.json");
  }

  @Test
  void prefixesOverlapWhenOneStartsWithTheOther() {
    assertThat(EvalState.overlap("replay-eval/x/a/", "")).isTrue();
    assertThat(EvalState.overlap("replay-eval/x/a/", "replay-eval/")).isTrue();
    assertThat(EvalState.overlap("replay-eval/x/a/", "a/")).isFalse();
  }
}
