package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code stateProxy} entries of {@code actors.yaml}: the spec's mount entry, checked at load.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StateMountTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private static List<StateMount> parse(String yaml) throws Exception {
    return StateMount.parseAll("a", YAML.readTree(yaml));
  }

  @Test
  void readsTheSpecsMountEntry() throws Exception {
    List<StateMount> mounts =
        parse(
            """
        - name: cache
          mount: {path: /state/cache/}
          writeMode: passthrough
          connector:
            image: registry.example/svc-state-proxy-objstore-passthrough:1.4
            env:
              - {name: STATE_BUCKET, value: b}
              - {name: STATE_PREFIX, value: p/}
        - name: weights
          mount: {path: /state/weights}
          connector: {type: objstore-buffered-cas, env: {STATE_BUCKET: w}}
        """);

    assertThat(mounts)
        .containsExactly(
            new StateMount(
                "cache",
                "/state/cache",
                "passthrough",
                "objstore-passthrough",
                Map.of("STATE_BUCKET", "b", "STATE_PREFIX", "p/")),
            new StateMount(
                "weights",
                "/state/weights",
                "buffered",
                "objstore-buffered-cas",
                Map.of("STATE_BUCKET", "w")));
    assertThat(mounts)
        .extracting(StateMount::mountsEntry)
        .containsExactly(
            "cache:/state/cache:write=passthrough", "weights:/state/weights:write=buffered");
  }

  @Test
  void aBadEntryIsRefusedNamingTheActorAndTheEntry() {
    assertThatThrownBy(
            () ->
                parse(
                    "- {name: Bad_Name, mount: {path: /s}, connector: {type: objstore-passthrough}}"))
        .hasMessageContaining("actor 'a': stateProxy[0]")
        .hasMessageContaining("Bad_Name");
    assertThatThrownBy(
            () ->
                parse("- {name: c, mount: {path: state}, connector: {type: objstore-passthrough}}"))
        .hasMessageContaining("stateProxy[0] (c)")
        .hasMessageContaining("absolute");
    assertThatThrownBy(
            () ->
                parse(
                    "- {name: c, mount: {path: /s}, writeMode: lazy, connector: {type: objstore-passthrough}}"))
        .hasMessageContaining("writeMode 'lazy'");
    assertThatThrownBy(() -> parse("- {name: c, mount: {path: /s}, connector: {type: nfs}}"))
        .hasMessageContaining("(c): connector")
        .hasMessageContaining("'nfs'");
    assertThatThrownBy(
            () ->
                parse(
                    "- {name: c, mount: {path: /s}, connector: {type: objstore-passthrough, env: [{value: x}]}}"))
        .hasMessageContaining("name and value");
    assertThatThrownBy(
            () ->
                parse(
                    """
        - {name: c, mount: {path: /s}, connector: {type: objstore-passthrough}}
        - {name: c, mount: {path: /t}, connector: {type: objstore-passthrough}}
        """))
        .hasMessageContaining("'c' is used twice");
    assertThatThrownBy(() -> parse("{name: c}")).hasMessageContaining("must be a list");
  }

  @Test
  void devConfigCarriesTheMountsOfEachActor(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("flows.yaml"), "flows:\n  - {name: f, entrypoint: a}\n");
    Files.writeString(
        dir.resolve("actors.yaml"),
        """
        actors:
          a:
            handler: m.f
            stateProxy:
              - {name: s, mount: {path: /state/s}, connector: {type: objstore-buffered-lww}}
          b: {handler: m.g}
        """);

    DevConfig config = DevConfig.load(dir);

    assertThat(config.actors()).extracting(ActorSpec::name).containsExactly("a", "b");
    assertThat(config.actors().get(0).stateProxy())
        .extracting(StateMount::name)
        .containsExactly("s");
    assertThat(config.actors().get(1).stateProxy()).isEmpty();
  }

  @Test
  void theExamplesDeclareAMountedCacheActor() {
    Path root = TestStacks.root();
    DevConfig config = DevConfig.load(root.resolve("examples"));

    ActorSpec cache =
        config.actors().stream().filter(a -> a.name().equals("cache")).findFirst().orElseThrow();
    assertThat(cache.stateProxy()).extracting(StateMount::path).containsExactly("/state/cache");
    assertThat(config.flows()).containsKey("words");
  }
}
