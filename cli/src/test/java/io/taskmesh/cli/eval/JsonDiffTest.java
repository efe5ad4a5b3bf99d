package io.taskmesh.cli.eval;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.Json;
import org.junit.jupiter.api.Test;

class JsonDiffTest {
  private static JsonNode json(String s) {
    return Json.read(s, JsonNode.class);
  }

  @Test
  void equalValuesHaveNoChangesWhateverTheKeyOrder() {
    JsonDiff.Result r = JsonDiff.diff(json("{\"a\":1,\"b\":[1,2]}"), json("{\"b\":[1,2],\"a\":1}"));

    assertThat(r.equal()).isTrue();
  }

  @Test
  void numbersAreComparedByValue() {
    assertThat(JsonDiff.diff(json("{\"n\":1}"), json("{\"n\":1.0}")).equal()).isTrue();
  }

  @Test
  void aChangedLeafIsNamedByItsPointerWithBothValues() {
    JsonDiff.Result r =
        JsonDiff.diff(json("{\"text\":\"HELLO\",\"n\":1}"), json("{\"text\":\"hello\",\"n\":1}"));

    assertThat(r.changes()).hasSize(1);
    JsonDiff.Change c = r.changes().get(0);
    assertThat(c.path()).isEqualTo("/text");
    assertThat(c.kind()).isEqualTo(JsonDiff.Kind.CHANGED);
    assertThat(c.live().asText()).isEqualTo("HELLO");
    assertThat(c.candidate().asText()).isEqualTo("hello");
  }

  @Test
  void keysAndArrayItemsTheCandidateAddsOrDropsAreAddedOrRemoved() {
    JsonDiff.Result r =
        JsonDiff.diff(
            json("{\"gone\":true,\"steps\":[\"a\",\"b\"]}"),
            json("{\"steps\":[\"a\",\"b\",\"c\"],\"new\":{\"x\":1}}"));

    assertThat(r.changes())
        .extracting(JsonDiff.Change::path, JsonDiff.Change::kind)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("/gone", JsonDiff.Kind.REMOVED),
            org.assertj.core.groups.Tuple.tuple("/steps/2", JsonDiff.Kind.ADDED),
            org.assertj.core.groups.Tuple.tuple("/new", JsonDiff.Kind.ADDED));
  }

  @Test
  void aValueOfAnotherTypeIsOneChangeAtItsPath() {
    JsonDiff.Result r = JsonDiff.diff(json("{\"a\":{\"b\":1}}"), json("{\"a\":[1]}"));

    assertThat(r.changes()).extracting(JsonDiff.Change::path).containsExactly("/a");
  }

  @Test
  void keysWithSlashesAndTildesAreEscapedAsJsonPointerWants() {
    JsonDiff.Result r = JsonDiff.diff(json("{\"a/b~c\":1}"), json("{\"a/b~c\":2}"));

    assertThat(r.changes().get(0).path()).isEqualTo("/a~1b~0c");
  }

  @Test
  void aLongDiffIsCutAtItsLimitAndSaysSo() {
    StringBuilder live = new StringBuilder("[");
    StringBuilder cand = new StringBuilder("[");
    for (int i = 0; i < JsonDiff.MAX_CHANGES + 10; i++) {
      live.append(i == 0 ? "" : ",").append(i);
      cand.append(i == 0 ? "" : ",").append(-i - 1);
    }
    JsonDiff.Result r = JsonDiff.diff(json(live + "]"), json(cand + "]"));

    assertThat(r.changes()).hasSize(JsonDiff.MAX_CHANGES);
    assertThat(r.truncated()).isTrue();
  }

  @Test
  void thePathsLineShowsTheKindOfEachChange() {
    JsonDiff.Result r = JsonDiff.diff(json("{\"a\":1,\"b\":2}"), json("{\"a\":3,\"c\":4}"));

    assertThat(JsonDiff.paths(r, 5)).isEqualTo("~/a, -/b, +/c");
    assertThat(JsonDiff.paths(r, 1)).isEqualTo("~/a (2 more)");
  }
}
