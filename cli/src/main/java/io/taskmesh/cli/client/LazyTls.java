package io.taskmesh.cli.client;

import java.net.http.HttpClient;
import java.security.KeyManagementException;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * An HTTP client whose TLS set-up waits until a TLS connection needs it. {@link HttpClient}'s
 * builder asks for the JVM's default TLS context at once, which loads the TLS provider, parses the
 * trust store's certificates and adds some 400 classes: a third of a CLI command's start-up, paid
 * even when it talks plain HTTP to a local gateway, as it mostly does. Here the default context is
 * made the first time a connection uses TLS, and nothing changes for an {@code https://} gateway.
 */
final class LazyTls {
  private LazyTls() {}

  static HttpClient.Builder client() {
    return HttpClient.newBuilder()
        .sslContext(new SSLContext(new DefaultWhenUsed(), null, "Default") {})
        // the builder would otherwise read the defaults from the context at once
        .sslParameters(new SSLParameters());
  }

  /** Every call goes to the JVM's default context, made on the first call. */
  private static final class DefaultWhenUsed extends SSLContextSpi {
    private SSLContext context;

    private synchronized SSLContext context() {
      if (context == null) {
        try {
          context = SSLContext.getDefault();
        } catch (NoSuchAlgorithmException e) {
          throw new IllegalStateException("no TLS on this JVM", e);
        }
      }
      return context;
    }

    @Override
    protected void engineInit(KeyManager[] km, TrustManager[] tm, SecureRandom sr)
        throws KeyManagementException {
      throw new KeyManagementException("the default context is initialised already");
    }

    @Override
    protected SSLSocketFactory engineGetSocketFactory() {
      return context().getSocketFactory();
    }

    @Override
    protected SSLServerSocketFactory engineGetServerSocketFactory() {
      return context().getServerSocketFactory();
    }

    @Override
    protected SSLEngine engineCreateSSLEngine() {
      return context().createSSLEngine();
    }

    @Override
    protected SSLEngine engineCreateSSLEngine(String host, int port) {
      return context().createSSLEngine(host, port);
    }

    @Override
    protected SSLSessionContext engineGetServerSessionContext() {
      return context().getServerSessionContext();
    }

    @Override
    protected SSLSessionContext engineGetClientSessionContext() {
      return context().getClientSessionContext();
    }

    @Override
    protected SSLParameters engineGetDefaultSSLParameters() {
      return context().getDefaultSSLParameters();
    }

    @Override
    protected SSLParameters engineGetSupportedSSLParameters() {
      return context().getSupportedSSLParameters();
    }
  }
}
