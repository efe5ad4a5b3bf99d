package io.taskmesh.unixhttp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Response parsing and request formatting of the Unix-socket client, on byte arrays (no I/O). */
class HttpResponseReaderTest {
  private static HttpResponseReader reader(String wire) {
    return new HttpResponseReader(
        new ByteArrayInputStream(wire.getBytes(StandardCharsets.ISO_8859_1)), 1 << 20);
  }

  /** Hands out at most one byte per read, as a slow socket might. */
  private static HttpResponseReader trickle(String wire) {
    byte[] b = wire.getBytes(StandardCharsets.ISO_8859_1);
    InputStream in =
        new InputStream() {
          int i;

          @Override
          public int read() {
            return i < b.length ? b[i++] & 0xff : -1;
          }

          @Override
          public int read(byte[] buf, int off, int len) {
            if (len == 0) {
              return 0;
            }
            if (i >= b.length) {
              return -1;
            }
            buf[off] = b[i++];
            return 1;
          }
        };
    return new HttpResponseReader(in, 1 << 20);
  }

  @Test
  void contentLengthBodyAndKeepAlive() throws IOException {
    HttpResponse r =
        reader(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{\"a\":\"\u00e9\"}x")
            .read(false);
    assertEquals(200, r.status());
    assertEquals("application/json", r.header("Content-Type"));
    assertEquals(10, r.body().length);
    assertTrue(r.reusable());
  }

  @Test
  void twoResponsesBackToBackOnOneConnection() throws IOException {
    HttpResponseReader rd =
        trickle(
            "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}"
                + "HTTP/1.1 404 Not Found\r\ncontent-length: 5\r\n\r\nnope!");
    HttpResponse a = rd.read(false);
    HttpResponse b = rd.read(false);
    assertEquals(201, a.status());
    assertEquals("{}", a.bodyString());
    assertEquals(404, b.status());
    assertEquals("nope!", b.bodyString());
  }

  @Test
  void chunkedBodyWithExtensionsAndTrailers() throws IOException {
    String wire =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n"
            + "1A\r\n"
            + " world, and more bytes!!!!\r\n"
            + "0\r\nX-Trailer: 1\r\n\r\n"
            + "HTTP/1.1 204 No Content\r\n\r\n";
    HttpResponseReader rd = trickle(wire);
    HttpResponse r = rd.read(false);
    assertEquals("hello world, and more bytes!!!!", r.bodyString());
    assertTrue(r.reusable());
    assertEquals(204, rd.read(false).status());
  }

  @Test
  void interimResponsesAreSkipped() throws IOException {
    HttpResponse r =
        reader(
                "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
                    + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            .read(false);
    assertEquals(200, r.status());
    assertEquals("ok", r.bodyString());
    assertEquals(null, r.header("link"));
  }

  @Test
  void headAnd204And304HaveNoBodyWhateverTheHeadersSay() throws IOException {
    HttpResponseReader rd =
        reader(
            "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nX-Is-File: true\r\n\r\n"
                + "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n"
                + "HTTP/1.1 304 Not Modified\r\nContent-Length: 7\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nz");
    HttpResponse head = rd.read(true);
    assertEquals(0, head.body().length);
    assertEquals("true", head.header("x-is-file"));
    assertEquals(204, rd.read(false).status());
    assertEquals(304, rd.read(false).status());
    assertEquals("z", rd.read(false).bodyString());
  }

  @Test
  void connectionCloseAndHttp10AreNotReusable() throws IOException {
    assertFalse(
        reader("HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
            .read(false)
            .reusable());
    assertFalse(
        reader("HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n")
            .read(false)
            .reusable());
    assertFalse(reader("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n").read(false).reusable());
    assertTrue(
        reader("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n")
            .read(false)
            .reusable());
  }

  @Test
  void noFramingReadsToTheEndAndIsNotReusable() throws IOException {
    HttpResponse r = reader("HTTP/1.1 200 OK\r\n\r\nuntil the end").read(false);
    assertEquals("until the end", r.bodyString());
    assertFalse(r.reusable());
  }

  @Test
  void bareLfLinesFoldedHeaderNamesAndRepeatedHeaders() throws IOException {
    HttpResponse r =
        reader("HTTP/1.1 200\nSet-Thing: a\nset-thing: b\nCONTENT-LENGTH:  3 \n\nabc").read(false);
    assertEquals(200, r.status());
    assertEquals("a, b", r.header("set-thing"));
    assertEquals("abc", r.bodyString());
  }

  @Test
  void endOfStreamBeforeAnyByteIsNoResponse() {
    assertThrows(HttpResponseReader.NoResponseException.class, () -> reader("").read(false));
  }

  @Test
  void truncatedResponsesFail() {
    EOFException a =
        assertThrows(EOFException.class, () -> reader("HTTP/1.1 200 OK\r\nContent-Le").read(false));
    assertFalse(a instanceof HttpResponseReader.NoResponseException);
    assertThrows(
        EOFException.class,
        () -> reader("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc").read(false));
    assertThrows(
        EOFException.class,
        () -> reader("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab").read(false));
  }

  @Test
  void malformedResponsesFail() {
    for (String wire :
        new String[] {
          "HTTP/2 200 OK\r\n\r\n",
          "HTTP/1.1 2x0 OK\r\n\r\n",
          "HTTP/1.1 2000 OK\r\n\r\n",
          "ICY 200 OK\r\n\r\n",
          "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
          "HTTP/1.1 200 OK\r\n folded: x\r\n\r\n",
          "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
          "HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\n",
          "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
          "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
          "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n",
          "HTTP/1.1 101 Switching Protocols\r\n\r\n"
        }) {
      assertThrows(
          HttpResponseReader.ProtocolException.class, () -> reader(wire).read(false), wire);
    }
  }

  @Test
  void bodiesOverTheLimitFail() {
    HttpResponseReader small =
        new HttpResponseReader(
            new ByteArrayInputStream(
                "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world"
                    .getBytes(StandardCharsets.ISO_8859_1)),
            10);
    assertThrows(HttpResponseReader.ProtocolException.class, () -> small.read(false));
    HttpResponseReader chunked =
        new HttpResponseReader(
            new ByteArrayInputStream(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nhello \r\n5\r\nworld\r\n0\r\n\r\n"
                    .getBytes(StandardCharsets.ISO_8859_1)),
            10);
    assertThrows(HttpResponseReader.ProtocolException.class, () -> chunked.read(false));
  }

  @Test
  void requestHeadCarriesHostContentTypeAndLength() {
    Map<String, String> h = new LinkedHashMap<>();
    h.put("If-None-Match", "*");
    byte[] body = "{\"a\":\"\u00e9\"}".getBytes(StandardCharsets.UTF_8);
    String head =
        new String(
            UnixHttpClient.head("PUT", "/keys/a%20b?if_status=x", h, body),
            StandardCharsets.ISO_8859_1);
    assertEquals(
        "PUT /keys/a%20b?if_status=x HTTP/1.1\r\nHost: localhost\r\nIf-None-Match: *\r\n"
            + "Content-Type: application/json\r\nContent-Length: "
            + body.length
            + "\r\n\r\n",
        head);
    assertEquals(
        "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n",
        new String(
            UnixHttpClient.head("GET", "/healthz", null, null), StandardCharsets.ISO_8859_1));
    assertTrue(
        new String(UnixHttpClient.head("POST", "/query", null, null), StandardCharsets.ISO_8859_1)
            .contains("Content-Length: 0\r\n"));
  }

  @Test
  void requestHeadRefusesInjection() {
    assertThrows(
        IllegalArgumentException.class, () -> UnixHttpClient.head("GET", "/a b", null, null));
    assertThrows(
        IllegalArgumentException.class, () -> UnixHttpClient.head("GET", "/a\r\nX: y", null, null));
    assertThrows(
        IllegalArgumentException.class,
        () -> UnixHttpClient.head("GET", "/a", Map.of("X", "v\r\nEvil: 1"), null));
    assertThrows(
        IllegalArgumentException.class,
        () -> UnixHttpClient.head("GET", "/a", Map.of("X Y", "v"), null));
  }

  @Test
  void onlySafeMethodsAreRetriedByDefault() {
    assertTrue(UnixHttpClient.isSafe("GET"));
    assertTrue(UnixHttpClient.isSafe("HEAD"));
    assertFalse(UnixHttpClient.isSafe("PUT"));
    assertFalse(UnixHttpClient.isSafe("POST"));
    assertFalse(UnixHttpClient.isSafe("DELETE"));
  }

  @Test
  void oneByteAtATimeGivesTheSameResult() throws IOException {
    String wire = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nabcd";
    assertArrayEquals(reader(wire).read(false).body(), trickle(wire).read(false).body());
  }
}
