package io.taskmesh.unixhttp;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/**
 * One HTTP response. Header names are lower case (repeated headers joined with ", "). {@code
 * reusable}: the connection may carry another request.
 */
// bytes carried from one side to the other, never compared or used as a key
@SuppressWarnings("ArrayRecordComponent")
public record HttpResponse(int status, Map<String, String> headers, byte[] body, boolean reusable) {
  public String bodyString() {
    return new String(body, StandardCharsets.UTF_8);
  }

  public String header(String name) {
    return headers.get(name.toLowerCase(Locale.ROOT));
  }
}
