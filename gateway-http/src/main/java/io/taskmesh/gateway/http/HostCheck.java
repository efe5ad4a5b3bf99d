package io.taskmesh.gateway.http;

import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * DNS-rebinding protection (Streamable HTTP, "Security Warning"): the Host header must match one of
 * the allowed host patterns ({@code host:port}, {@code host:*}) and an Origin, when sent, one of
 * the allowed origin patterns. An empty list allows everything. Also applied to the other client
 * routes of a gateway bound to loopback ({@link LoopbackHostFilter}). {@code /mcp} answers its
 * refusals in JSON-RPC, the other routes in plain text.
 */
public final class HostCheck {
  private final List<Pattern> hosts;
  private final List<Pattern> origins;

  public HostCheck(List<String> allowedHosts, List<String> allowedOrigins) {
    this.hosts = allowedHosts.stream().map(HostCheck::pattern).toList();
    this.origins = allowedOrigins.stream().map(HostCheck::pattern).toList();
  }

  public boolean hostAllowed(String host) {
    if (hosts.isEmpty()) {
      return true;
    }
    if (host == null) {
      return false;
    }
    String h = host.toLowerCase(Locale.ROOT);
    return hosts.stream().anyMatch(p -> p.matcher(h).matches());
  }

  public boolean originAllowed(String origin) {
    return origin == null
        || origins.isEmpty()
        || origins.stream().anyMatch(p -> p.matcher(origin.toLowerCase(Locale.ROOT)).matches());
  }

  /** {@code *} stands for any port (or any run of characters without a slash). */
  private static Pattern pattern(String glob) {
    StringBuilder regex = new StringBuilder();
    for (String part : glob.toLowerCase(Locale.ROOT).split("\\*", -1)) {
      if (regex.length() > 0 || glob.startsWith("*")) {
        regex.append("[^/]*");
      }
      regex.append(Pattern.quote(part));
    }
    String r = regex.toString();
    // "host:*" also admits the bare host (a Host header without a port)
    if (glob.endsWith(":*")) {
      r =
          "(?:"
              + r
              + "|"
              + Pattern.quote(glob.substring(0, glob.length() - 2).toLowerCase(Locale.ROOT))
              + ")";
    }
    return Pattern.compile(r);
  }
}
