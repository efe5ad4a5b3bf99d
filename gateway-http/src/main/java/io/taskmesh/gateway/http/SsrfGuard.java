package io.taskmesh.gateway.http;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * The one check of a server-side request to a URL a client chose (A2A push notification targets,
 * OAuth client ID metadata documents): every address the host resolves to must be public.
 *
 * <p>Refused: unspecified, loopback, private (RFC 1918, fc00::/7), shared (CGNAT 100.64/10),
 * link-local, site-local, benchmarking, IETF and documentation ranges, multicast and the rest of
 * 240/4. IPv6 forms that carry an IPv4 address are judged by that address (IPv4-mapped {@code
 * ::ffff:a.b.c.d}, NAT64 {@code 64:ff9b::/96}, 6to4 {@code 2002::/16}), because the operating
 * system may route them to it; the deprecated IPv4-compatible form ({@code ::a.b.c.d}, e.g. {@code
 * ::7f00:1}) and Teredo are refused whole, since nothing public needs them.
 */
public final class SsrfGuard {
  private SsrfGuard() {}

  /** Why a host was refused, in words a client can be shown. */
  public static final class Refused extends RuntimeException {
    Refused(String why) {
      super(why);
    }
  }

  /**
   * Resolves {@code host} (a name or an address literal, brackets allowed) and returns its
   * addresses; {@link Refused} when it does not resolve or when one address is not public (loopback
   * is let through only with {@code allowLoopback}, for tests).
   */
  public static InetAddress[] requirePublic(String host, boolean allowLoopback) {
    String bare =
        host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    InetAddress[] addresses;
    try {
      addresses = InetAddress.getAllByName(bare);
    } catch (UnknownHostException e) {
      throw new Refused("host does not resolve: " + host);
    }
    for (InetAddress a : addresses) {
      if (!isPublic(a) && !(allowLoopback && isLoopback(a))) {
        throw new Refused(
            "host resolves to a loopback, private or local address ("
                + host
                + " -> "
                + a.getHostAddress()
                + ")");
      }
    }
    return addresses;
  }

  /** Loopback in any form: 127/8, ::1, and 127/8 inside an IPv4-mapped address. */
  public static boolean isLoopback(InetAddress a) {
    byte[] v4 = embeddedV4(a.getAddress());
    return a.isLoopbackAddress() || (v4 != null && v4[0] == 127);
  }

  /** Whether {@code a} is an address a server-side request may go to. */
  public static boolean isPublic(InetAddress a) {
    byte[] b = a.getAddress();
    return a instanceof Inet4Address ? isPublicV4(b) : isPublicV6(b);
  }

  private static boolean isPublicV4(byte[] b) {
    int first = b[0] & 0xff;
    int second = b[1] & 0xff;
    int third = b[2] & 0xff;
    return !(first == 0 // "this network", 0.0.0.0
        || first == 10
        || first == 127
        || (first == 100 && second >= 64 && second <= 127) // shared address space (CGNAT)
        || (first == 169 && second == 254)
        || (first == 172 && second >= 16 && second <= 31)
        || (first == 192 && second == 168)
        || (first == 192 && second == 0 && (third == 0 || third == 2)) // IETF, TEST-NET-1
        || (first == 198 && (second == 18 || second == 19)) // benchmarking
        || (first == 198 && second == 51 && third == 100) // TEST-NET-2
        || (first == 203 && second == 0 && third == 113) // TEST-NET-3
        || first >= 224); // multicast, reserved, broadcast
  }

  private static boolean isPublicV6(byte[] b) {
    byte[] v4 = embeddedV4(b);
    if (v4 != null) {
      return isPublicV4(v4);
    }
    int first = b[0] & 0xff;
    int second = b[1] & 0xff;
    if (allZero(b, 0, 12)) {
      return false; // ::, ::1 and the deprecated IPv4-compatible ::a.b.c.d
    }
    return !(first == 0xff // multicast
        || (first & 0xfe) == 0xfc // unique local fc00::/7
        || (first == 0xfe && (second & 0xc0) == 0x80) // link-local fe80::/10
        || (first == 0xfe && (second & 0xc0) == 0xc0) // site-local fec0::/10 (deprecated)
        || (first == 0x01 && second == 0 && allZero(b, 2, 8)) // discard 100::/64
        || (first == 0x20 && second == 0x01 && b[2] == 0 && b[3] == 0) // Teredo 2001::/32
        || (first == 0x20 && second == 0x01 && (b[2] & 0xff) == 0x0d && (b[3] & 0xff) == 0xb8)
        || (first == 0x00 && second == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b)
        // the rest of 64:ff9b::/32 (local-use NAT64 64:ff9b:1::/48 included)
        || first == 0x00); // ::/8 reserved
  }

  /**
   * The IPv4 address an IPv6 address stands for when it is IPv4-mapped, NAT64 (64:ff9b::/96) or
   * 6to4 (2002::/16); null otherwise, and for IPv4 addresses themselves.
   */
  private static byte[] embeddedV4(byte[] b) {
    if (b.length == 4) {
      return null;
    }
    boolean mapped = allZero(b, 0, 10) && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
    boolean nat64 =
        b[0] == 0
            && (b[1] & 0xff) == 0x64
            && (b[2] & 0xff) == 0xff
            && (b[3] & 0xff) == 0x9b
            && allZero(b, 4, 12);
    if (mapped || nat64) {
      return Arrays.copyOfRange(b, 12, 16);
    }
    if ((b[0] & 0xff) == 0x20 && (b[1] & 0xff) == 0x02) {
      return Arrays.copyOfRange(b, 2, 6);
    }
    return null;
  }

  private static boolean allZero(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return true;
  }
}
