package io.taskmesh.gateway.oauth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.taskmesh.servicekit.ConfigException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which client ID metadata documents are accepted, with and without a registration token. */
class MetadataDocumentPolicyTest {
  private static final String DOC = "https://app.example.com/oauth/client.json";

  @Test
  void openRegistrationAndNoListAcceptsAnyDocumentUrl() {
    MetadataDocumentPolicy p = MetadataDocumentPolicy.of(null, List.of());
    assertThat(p.enabled()).isTrue();
    assertThatCode(() -> p.check(DOC)).doesNotThrowAnyException();
  }

  @Test
  void aRegistrationTokenWithoutAListTurnsMetadataDocumentsOff() {
    MetadataDocumentPolicy p = MetadataDocumentPolicy.of("reg-token", List.of());
    assertThat(p.enabled()).isFalse();
    assertThatThrownBy(() -> p.check(DOC))
        .isInstanceOf(OAuthError.class)
        .hasMessageContaining("off");
  }

  @Test
  void withAListOnlyUrlsUnderItsPrefixesAreAccepted() {
    for (String token : new String[] {null, "reg-token"}) {
      MetadataDocumentPolicy p =
          MetadataDocumentPolicy.of(token, List.of("https://app.example.com/oauth/"));
      assertThat(p.enabled()).isTrue();
      assertThatCode(() -> p.check(DOC)).doesNotThrowAnyException();
      for (String refused :
          List.of(
              "https://evil.example.com/oauth/client.json",
              "https://app.example.com/other/client.json",
              "https://app.example.com.evil.com/oauth/client.json",
              "https://app.example.com/oauth/%2e%2e/evil/client.json",
              "https://app.example.com/oauth/../evil/client.json")) {
        assertThatThrownBy(() -> p.check(refused)).as(refused).isInstanceOf(OAuthError.class);
      }
    }
  }

  @Test
  void aPrefixThatCouldMatchAnotherHostStopsTheStartNamingTheVariable() {
    for (String bad :
        List.of(
            "https://app.example.com",
            "http://app.example.com/",
            "ftp://app.example.com/",
            "https://u@app.example.com/",
            "not a url/")) {
      assertThatThrownBy(() -> MetadataDocumentPolicy.of("t", List.of(bad)))
          .as(bad)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("SVC_MCP_OAUTH_CIMD_ALLOWED");
    }
    assertThat(MetadataDocumentPolicy.of("t", List.of("http://127.0.0.1:8/docs/")).enabled())
        .isTrue();
  }
}
