package io.taskmesh.kvconnector;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** Request bodies: at most a limit of bytes (413 beyond), exactly one JSON value (400 otherwise). */
final class JsonBodies {
  /** Bytes read and thrown away after an over-limit body, so a client still uploading gets its 413. */
  private static final int DRAIN_LIMIT = 256 * 1024;
  private static final JsonFactory FACTORY = new JsonFactory();

  private JsonBodies() {}

  /** Reads at most {@code max} bytes of {@code in} ({@code declared}: Content-Length or -1). */
  static String read(InputStream in, long declared, int max) {
    byte[] bytes;
    try (in) {
      if (declared > max) {
        drainSomeOf(in);
        throw KvException.tooLarge(max);
      }
      bytes = in.readNBytes(max + 1);
      if (bytes.length > max) {
        drainSomeOf(in);
        throw KvException.tooLarge(max);
      }
    } catch (IOException e) {
      throw KvException.badRequest("cannot read the request body: " + e.getMessage());
    }
    if (bytes.length == 0) {
      throw KvException.badRequest("the request body must be a JSON document, got an empty body");
    }
    checkOneJsonValue(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /**
   * Reads and discards up to {@link #DRAIN_LIMIT} more bytes of an over-limit body. Without it the
   * server answers 413 and closes while a slightly-too-large upload is still being written, and the
   * client sees a broken pipe instead of the 413. Larger bodies are cut off (the connection closes).
   */
  private static void drainSomeOf(InputStream in) {
    try {
      byte[] sink = new byte[8192];
      int total = 0;
      int n;
      while (total < DRAIN_LIMIT && (n = in.read(sink, 0, Math.min(sink.length, DRAIN_LIMIT - total))) >= 0) {
        total += n;
      }
    } catch (IOException e) {
      // the client stopped sending: nothing left to drain
    }
  }

  /**
   * 400 unless {@code bytes} is exactly one JSON value. Streams the tokens (no tree is built):
   * every token is still tokenized and checked, so malformed JSON anywhere is found.
   */
  static void checkOneJsonValue(byte[] bytes) {
    try (JsonParser p = FACTORY.createParser(bytes)) {
      if (p.nextToken() == null) {
        throw KvException.badRequest("the request body must be a JSON document, got only whitespace");
      }
      p.skipChildren();
      JsonToken trailing = p.nextToken();
      if (trailing != null) {
        throw KvException.badRequest("the request body is not valid JSON: trailing token " + trailing
            + " after the first value");
      }
    } catch (IOException e) {
      String msg = e instanceof JsonProcessingException jpe ? jpe.getOriginalMessage() : e.getMessage();
      throw KvException.badRequest("the request body is not valid JSON: " + msg);
    }
  }
}
