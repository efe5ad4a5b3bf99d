package io.taskmesh.gateway.oauth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The SSRF guard of client ID metadata document fetches (no fetch happens for a refused URL). */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ClientMetadataDocumentsTest {
  private final ClientMetadataDocuments strict =
      new ClientMetadataDocuments(false, Clock.systemUTC());
  private final ClientMetadataDocuments loopbackAllowed =
      new ClientMetadataDocuments(true, Clock.systemUTC());

  @Test
  void nonPublicTargetsAreRefused() {
    for (String url :
        List.of(
            "https://127.0.0.1/client.json",
            "https://localhost/client.json",
            "https://[::1]/client.json",
            "https://10.0.0.1/client.json",
            "https://192.168.0.1/c.json",
            "https://172.16.5.4/c.json",
            "https://169.254.169.254/latest/meta-data",
            "https://0.0.0.0/c.json",
            "https://100.64.0.1/c.json",
            "https://[fd00::1]/c.json",
            "https://[fe80::1]/c.json")) {
      assertThatThrownBy(() -> strict.guard(url))
          .as(url)
          .isInstanceOf(OAuthError.class)
          .hasMessageContaining("loopback, private or local");
    }
  }

  @Test
  void malformedOrPlainHttpUrlsAreRefused() {
    for (String url :
        List.of(
            "http://93.184.215.14/client.json",
            "https://93.184.215.14",
            "https://93.184.215.14/",
            "https://u:p@93.184.215.14/c.json",
            "https://93.184.215.14/c.json#x",
            "https://93.184.215.14/a/../c.json",
            "http://127.0.0.1:8080/client.json")) {
      assertThatThrownBy(() -> strict.guard(url)).as(url).isInstanceOf(OAuthError.class);
    }
  }

  @Test
  void theTestSwitchAllowsLoopbackOnlyNotPrivateNetworks() {
    assertThat(loopbackAllowed.guard("http://127.0.0.1:8080/client.json").getPort())
        .isEqualTo(8080);
    assertThatThrownBy(() -> loopbackAllowed.guard("https://10.1.2.3/client.json"))
        .isInstanceOf(OAuthError.class);
    assertThatThrownBy(() -> loopbackAllowed.guard("http://10.1.2.3/client.json"))
        .isInstanceOf(OAuthError.class);
  }

  @Test
  void aPublicAddressPasses() throws Exception {
    assertThat(strict.guard("https://93.184.215.14/client.json").getHost())
        .isEqualTo("93.184.215.14");
  }
}
