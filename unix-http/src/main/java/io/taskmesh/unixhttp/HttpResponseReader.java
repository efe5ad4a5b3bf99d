package io.taskmesh.unixhttp;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Reads one HTTP/1.1 response from a byte stream (no I/O of its own, so it is unit-tested on byte
 * arrays): status line, headers, then a body framed by {@code Content-Length}, by {@code
 * Transfer-Encoding: chunked} (trailers skipped), or by the end of the stream. Interim {@code 1xx}
 * responses are skipped. Responses to HEAD and {@code 204}/{@code 304} have no body.
 */
public final class HttpResponseReader {
  static final int MAX_LINE = 16 * 1024;
  static final int MAX_HEADERS = 200;

  private final InputStream in;
  private final int maxBody;
  private final StringBuilder line = new StringBuilder(128);

  /** {@code in} should be buffered: the reader takes one byte at a time while reading the head. */
  public HttpResponseReader(InputStream in, int maxBody) {
    this.in = in;
    this.maxBody = maxBody;
  }

  /** Signals a malformed response (the connection must not be reused). */
  public static final class ProtocolException extends IOException {
    public ProtocolException(String message) {
      super(message);
    }
  }

  /**
   * The stream ended before the first byte of a response (e.g. the server closed an idle
   * connection).
   */
  public static final class NoResponseException extends EOFException {
    public NoResponseException() {
      super("connection closed before the response");
    }
  }

  /**
   * A response's status line and headers; {@code close}: the connection cannot carry another
   * request.
   */
  public record Head(int status, Map<String, String> headers, boolean close) {}

  /**
   * Reads the next response. {@link NoResponseException} when the stream ends before the first byte
   * (a server that closed an idle connection); {@link HttpResponse#reusable()} false when the
   * connection cannot carry another request.
   */
  public HttpResponse read(boolean headRequest) throws IOException {
    Head head = readHead();
    boolean toEnd = !headRequest && hasBody(head) && isToEnd(head);
    byte[] body = headRequest ? new byte[0] : readBody(head);
    return new HttpResponse(head.status(), head.headers(), body, !head.close() && !toEnd);
  }

  /**
   * Reads the status line and headers of the next final response (interim 1xx responses skipped).
   */
  public Head readHead() throws IOException {
    while (true) {
      String statusLine = readLine(true);
      int status = parseStatus(statusLine);
      Map<String, String> headers = readHeaders();
      if (status >= 100 && status < 200) {
        if (status == 101) {
          throw new ProtocolException("unexpected 101 Switching Protocols");
        }
        continue; // interim response (100 Continue, 102, 103): the real one follows
      }
      boolean close =
          statusLine.startsWith("HTTP/1.0")
              ? !"keep-alive".equalsIgnoreCase(headers.get("connection"))
              : hasToken(headers.get("connection"), "close");
      return new Head(status, headers, close);
    }
  }

  /** The whole body of a response whose head was just read (not for a HEAD request). */
  public byte[] readBody(Head head) throws IOException {
    if (!hasBody(head)) {
      return new byte[0];
    }
    String te = head.headers().get("transfer-encoding");
    if (te != null && !te.equalsIgnoreCase("identity")) {
      if (!hasToken(te, "chunked")) {
        throw new ProtocolException("unsupported Transfer-Encoding: " + te);
      }
      return readChunked();
    }
    String cl = head.headers().get("content-length");
    if (cl != null) {
      long n;
      try {
        n = Long.parseLong(cl.trim());
      } catch (NumberFormatException e) {
        throw new ProtocolException("bad Content-Length: " + cl);
      }
      if (n < 0 || n > maxBody) {
        throw new ProtocolException(
            "Content-Length " + n + " out of range (limit " + maxBody + ")");
      }
      return readExactly((int) n);
    }
    // no framing: the body runs to the end of the stream
    return readToEnd();
  }

  /**
   * The bytes after the head, as they arrive: for a body read while it is written (an event
   * stream).
   */
  public InputStream rest() {
    return in;
  }

  private static boolean hasBody(Head head) {
    return head.status() != 204 && head.status() != 304;
  }

  private static boolean isToEnd(Head head) {
    String te = head.headers().get("transfer-encoding");
    return (te == null || te.equalsIgnoreCase("identity"))
        && head.headers().get("content-length") == null;
  }

  static int parseStatus(String statusLine) throws ProtocolException {
    // HTTP/1.1 200 OK
    if (!statusLine.startsWith("HTTP/1.")
        || statusLine.length() < 12
        || statusLine.charAt(8) != ' ') {
      throw new ProtocolException("bad status line: " + abbreviate(statusLine));
    }
    int status = 0;
    for (int i = 9; i < 12; i++) {
      char c = statusLine.charAt(i);
      if (c < '0' || c > '9') {
        throw new ProtocolException("bad status line: " + abbreviate(statusLine));
      }
      status = status * 10 + (c - '0');
    }
    if (statusLine.length() > 12 && statusLine.charAt(12) != ' ') {
      throw new ProtocolException("bad status line: " + abbreviate(statusLine));
    }
    return status;
  }

  private Map<String, String> readHeaders() throws IOException {
    Map<String, String> headers = new HashMap<>(16);
    for (int count = 0; ; count++) {
      String h = readLine(false);
      if (h.isEmpty()) {
        return headers;
      }
      if (count >= MAX_HEADERS) {
        throw new ProtocolException("more than " + MAX_HEADERS + " header lines");
      }
      int colon = h.indexOf(':');
      if (colon <= 0 || h.charAt(0) == ' ' || h.charAt(0) == '\t') {
        throw new ProtocolException("bad header line: " + abbreviate(h));
      }
      String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = h.substring(colon + 1).trim();
      headers.merge(name, value, (a, b) -> a + ", " + b);
    }
  }

  private byte[] readChunked() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    while (true) {
      String sizeLine = readLine(false);
      int semi = sizeLine.indexOf(';');
      String hex = (semi >= 0 ? sizeLine.substring(0, semi) : sizeLine).trim();
      long size;
      try {
        size = Long.parseLong(hex, 16);
      } catch (NumberFormatException e) {
        throw new ProtocolException("bad chunk size: " + abbreviate(sizeLine));
      }
      if (size < 0 || out.size() + size > maxBody) {
        throw new ProtocolException("chunked body over the limit of " + maxBody + " bytes");
      }
      if (size == 0) {
        // trailers, up to the empty line
        for (int i = 0; !readLine(false).isEmpty(); i++) {
          if (i >= MAX_HEADERS) {
            throw new ProtocolException("too many trailer lines");
          }
        }
        return out.toByteArray();
      }
      out.write(readExactly((int) size));
      if (!readLine(false).isEmpty()) {
        throw new ProtocolException("chunk not followed by CRLF");
      }
    }
  }

  private byte[] readExactly(int n) throws IOException {
    byte[] b = in.readNBytes(n);
    if (b.length < n) {
      throw new EOFException("connection closed after " + b.length + " of " + n + " body bytes");
    }
    return b;
  }

  private byte[] readToEnd() throws IOException {
    byte[] b = in.readNBytes(maxBody + 1);
    if (b.length > maxBody) {
      throw new ProtocolException("body over the limit of " + maxBody + " bytes");
    }
    return b;
  }

  /**
   * A line without its CRLF (a bare LF is accepted). {@code first}: EOF before any byte is an
   * EOFException.
   */
  private String readLine(boolean first) throws IOException {
    line.setLength(0);
    while (true) {
      int c = in.read();
      if (c < 0) {
        if (first && line.length() == 0) {
          throw new NoResponseException();
        }
        throw new EOFException("connection closed in the middle of a line");
      }
      if (c == '\n') {
        int len = line.length();
        if (len > 0 && line.charAt(len - 1) == '\r') {
          line.setLength(len - 1);
        }
        return line.toString();
      }
      if (line.length() >= MAX_LINE) {
        throw new ProtocolException("line longer than " + MAX_LINE + " bytes");
      }
      line.append((char) c); // ISO-8859-1: header bytes map 1:1 to chars
    }
  }

  static boolean hasToken(String headerValue, String token) {
    if (headerValue == null) {
      return false;
    }
    for (String part : headerValue.split(",")) {
      if (part.trim().equalsIgnoreCase(token)) {
        return true;
      }
    }
    return false;
  }

  private static String abbreviate(String s) {
    String t = s.length() > 80 ? s.substring(0, 80) + "..." : s;
    return new String(t.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.ISO_8859_1);
  }
}
