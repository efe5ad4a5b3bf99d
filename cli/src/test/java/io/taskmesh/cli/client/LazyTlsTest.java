package io.taskmesh.cli.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;

class LazyTlsTest {
  @Test
  void theClientsTlsContextIsTheDefaultOnceATlsConnectionAsksForIt() throws Exception {
    HttpClient client = LazyTls.client().build();
    SSLContext lazy = client.sslContext();
    SSLContext real = SSLContext.getDefault();
    // an https gateway gets what the default context offers, not an empty or refusing one
    assertThat(lazy.getDefaultSSLParameters().getProtocols())
        .containsExactly(real.getDefaultSSLParameters().getProtocols());
    assertThat(lazy.getDefaultSSLParameters().getCipherSuites())
        .containsExactly(real.getDefaultSSLParameters().getCipherSuites());
    assertThat(lazy.createSSLEngine("gateway.example", 443).getPeerHost())
        .isEqualTo("gateway.example");
    assertThat(lazy.getSocketFactory().getDefaultCipherSuites()).isNotEmpty();
  }
}
