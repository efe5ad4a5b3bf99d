package io.taskmesh.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The one SSRF guard of push targets and client metadata documents, over a table of address
 * literals (no DNS): every form that reaches this host, a private network or a local link is
 * refused, in IPv4 and in each IPv6 form that carries an IPv4 address.
 */
class SsrfGuardTest {
  /** address literal -> whether it is public. */
  private static final Map<String, Boolean> TABLE = new LinkedHashMap<>();

  static {
    // IPv4
    TABLE.put("8.8.8.8", true);
    TABLE.put("93.184.215.14", true);
    TABLE.put("172.32.0.1", true);
    TABLE.put("100.128.0.1", true);
    TABLE.put("0.0.0.0", false);
    TABLE.put("0.1.2.3", false);
    TABLE.put("127.0.0.1", false);
    TABLE.put("127.255.255.254", false);
    TABLE.put("10.0.0.1", false);
    TABLE.put("172.16.0.1", false);
    TABLE.put("172.31.255.255", false);
    TABLE.put("192.168.1.1", false);
    TABLE.put("169.254.169.254", false);
    TABLE.put("100.64.0.1", false);
    TABLE.put("192.0.0.8", false);
    TABLE.put("198.18.0.1", false);
    TABLE.put("224.0.0.1", false);
    TABLE.put("240.0.0.1", false);
    TABLE.put("255.255.255.255", false);
    // IPv6
    TABLE.put("2606:4700::1111", true);
    TABLE.put("2a00:1450:4001::200e", true);
    TABLE.put("::", false);
    TABLE.put("::1", false);
    TABLE.put("fc00::1", false);
    TABLE.put("fd12:3456::1", false);
    TABLE.put("fe80::1", false);
    TABLE.put("febf::1", false);
    TABLE.put("fec0::1", false);
    TABLE.put("ff02::1", false);
    TABLE.put("100::1", false);
    TABLE.put("2001:db8::1", false);
    TABLE.put("2001:0:4136:e378:8000:63bf:3fff:fdd2", false); // Teredo
    // IPv4-compatible (deprecated): refused whatever the IPv4 address
    TABLE.put("::127.0.0.1", false);
    TABLE.put("::7f00:1", false);
    TABLE.put("::10.0.0.1", false);
    TABLE.put("::8.8.8.8", false);
    // IPv4-mapped: judged by the IPv4 address
    TABLE.put("::ffff:127.0.0.1", false);
    TABLE.put("::ffff:7f00:1", false);
    TABLE.put("::ffff:10.0.0.1", false);
    TABLE.put("::ffff:169.254.169.254", false);
    TABLE.put("::ffff:8.8.8.8", true);
    // NAT64 64:ff9b::/96: judged by the IPv4 address; the rest of 64:ff9b::/32 refused
    TABLE.put("64:ff9b::7f00:1", false);
    TABLE.put("64:ff9b::a00:1", false);
    TABLE.put("64:ff9b::808:808", true);
    TABLE.put("64:ff9b:1::a00:1", false);
    // 6to4 2002::/16: judged by the IPv4 address in bits 16-47
    TABLE.put("2002:7f00:1::1", false);
    TABLE.put("2002:c0a8:101::1", false);
    TABLE.put("2002:a9fe:a9fe::1", false);
    TABLE.put("2002:808:808::1", true);
  }

  @Test
  void everyAddressOfTheTableIsJudgedAsExpected() throws Exception {
    for (Map.Entry<String, Boolean> row : TABLE.entrySet()) {
      InetAddress a = InetAddress.getByName(row.getKey());
      assertThat(SsrfGuard.isPublic(a)).as(row.getKey()).isEqualTo(row.getValue());
    }
  }

  @Test
  void requirePublicRefusesEveryNonPublicLiteralBracketedOrNot() {
    for (Map.Entry<String, Boolean> row : TABLE.entrySet()) {
      String host = row.getKey().contains(":") ? "[" + row.getKey() + "]" : row.getKey();
      if (row.getValue()) {
        assertThat(SsrfGuard.requirePublic(host, false)).as(host).hasSize(1);
      } else {
        assertThatThrownBy(() -> SsrfGuard.requirePublic(host, false))
            .as(host)
            .isInstanceOf(SsrfGuard.Refused.class)
            .hasMessageContaining("loopback, private or local address");
      }
    }
  }

  @Test
  void theLoopbackSwitchLetsLoopbackThroughButNoPrivateNetwork() {
    assertThat(SsrfGuard.requirePublic("127.0.0.1", true)).hasSize(1);
    assertThat(SsrfGuard.requirePublic("[::1]", true)).hasSize(1);
    assertThat(SsrfGuard.requirePublic("[::ffff:127.0.0.1]", true)).hasSize(1);
    for (String host : new String[] {"10.0.0.1", "[fd00::1]", "169.254.169.254", "[::10.0.0.1]"}) {
      assertThatThrownBy(() -> SsrfGuard.requirePublic(host, true))
          .as(host)
          .isInstanceOf(SsrfGuard.Refused.class);
    }
  }

  @Test
  void anUnresolvableHostIsRefusedInOurWords() {
    assertThatThrownBy(() -> SsrfGuard.requirePublic("no-such-host.invalid", false))
        .isInstanceOf(SsrfGuard.Refused.class)
        .hasMessage("host does not resolve: no-such-host.invalid");
  }
}
