package io.taskmesh.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ErrorDetailsTest {

  @Test
  void aShortTracebackIsKeptWhole() {
    ErrorDetails d =
        new ErrorDetails("upper", "KeyError", "ProcessingError", "line\nKeyError: 'text'\n");
    assertThat(d.traceback()).isEqualTo("line\nKeyError: 'text'\n");
  }

  @Test
  void aLongTracebackKeepsItsEndWithinTheBoundAndSaysItWasCut() {
    String tb = "x".repeat(20_000) + "\nKeyError: 'text'\n";
    ErrorDetails d = new ErrorDetails("upper", "KeyError", "ProcessingError", tb);
    assertThat(d.traceback()).hasSize(ErrorDetails.MAX_TRACEBACK_CHARS);
    assertThat(d.traceback()).startsWith("...(traceback cut").endsWith("\nKeyError: 'text'\n");
  }

  @Test
  void aPauseHeaderThatIsAQuestionIsTheQuestionAndAFlagIsNone() {
    assertThat(FinalReport.paused("t", "x-pause", Map.of("pause", "What is your name?")).question())
        .isEqualTo("What is your name?");
    assertThat(FinalReport.paused("t", "x-pause", Map.of("pause", "true")).question()).isNull();
    assertThat(FinalReport.paused("t", "x-pause", Map.of("pause", "1")).question()).isNull();
    assertThat(FinalReport.paused("t", "x-pause", Map.of()).question()).isNull();
  }

  @Test
  void detailsTravelInAFinalReportAndBack() {
    FinalReport r =
        FinalReport.failed(
            "t",
            "KeyError: 'text'",
            "x-sink",
            Map.of(),
            new ErrorDetails("upper", "KeyError", "ProcessingError", "tb"));
    assertThat(Json.read(Json.write(r), FinalReport.class)).isEqualTo(r);
    assertThat(Json.write(r)).contains("\"error_details\":{\"actor\":\"upper\"");
  }
}
