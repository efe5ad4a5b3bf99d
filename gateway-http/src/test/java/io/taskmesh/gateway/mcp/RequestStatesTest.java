package io.taskmesh.gateway.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RequestStatesTest {
  @Test
  void aSignedStateNamesItsTaskAndPauseAndAnyChangeVoidsIt() {
    RequestStates states = RequestStates.keyedBy("a-shared-secret-of-16+");
    String state = states.sign("task-1", 7);
    assertThat(states.verify(state)).contains(new RequestStates.Paused("task-1", 7));
    String body = state.substring(0, state.indexOf('.'));
    String forged =
        java.util.Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString("task-2\n7".getBytes(java.nio.charset.StandardCharsets.UTF_8))
            + state.substring(state.indexOf('.'));
    assertThat(states.verify(forged)).isEmpty();
    assertThat(states.verify(body + ".AAAA")).isEmpty();
    assertThat(states.verify("task-1")).isEmpty();
    assertThat(states.verify(state + "." + state)).isEmpty();
  }

  @Test
  void replicasWithTheSameSecretAcceptEachOthersStatesAndOthersDoNot() {
    String state = RequestStates.keyedBy("secret-one-0123456").sign("t", 1);
    assertThat(RequestStates.keyedBy("secret-one-0123456").verify(state)).isPresent();
    assertThat(RequestStates.keyedBy("secret-two-0123456").verify(state)).isEmpty();
    assertThat(RequestStates.keyedBy(null).verify(state)).isEmpty();
  }
}
