package io.taskmesh.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.schemas.Json;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class TablesTest {

  @Test
  void aTaskPageIsATableWithAlignedColumns() throws Exception {
    String table =
        Tables.tasks(
            Json.MAPPER.readTree(
                "{\"tasks\":[{\"id\":\"a1\",\"flow\":\"shout\",\"status\":\"running\","
                    + "\"progress_percent\":33.3,\"current_actor_name\":\"upper\",\"created_at\":\"2026-01-01T00:00:00Z\"},"
                    + "{\"id\":\"long-id-2\",\"flow\":\"echo\",\"status\":\"succeeded\",\"progress_percent\":100,"
                    + "\"current_actor_name\":\"echo\",\"created_at\":\"2026-01-01T00:00:01Z\"}],\"total\":2}"));

    assertThat(table)
        .isEqualTo(
            """
        ID         FLOW   STATUS     PROGRESS  ACTOR  CREATED
        a1         shout  running    33%       upper  2026-01-01T00:00:00Z
        long-id-2  echo   succeeded  100%      echo   2026-01-01T00:00:01Z
        """);
  }
}
