package io.fencegate.issuer.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.backend.LeaseIdFormat;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class LeaseIdsTest {

    private static final String LOCKS = "/fencegate/locks";
    private static final String PATH = LOCKS + "/YQ/_c_0a1f-lease-0000000003";

    @Test
    void roundTripsPathAndSecret() {
        String secret = LeaseIdFormat.newSecret();
        LeaseIds.Parsed parsed = LeaseIds.parse(LeaseIds.FORMAT.format(PATH, secret), LOCKS).orElseThrow();
        assertThat(parsed.path()).isEqualTo(PATH);
        assertThat(parsed.secret()).isEqualTo(secret).hasSize(32);
        assertThat(LeaseIdFormat.newSecret()).isNotEqualTo(secret);
    }

    @Test
    void refusesIdsNamingNodesOutsideTheLockQueues() {
        String secret = LeaseIdFormat.newSecret();
        for (String path : new String[] {"/zookeeper/quota", LOCKS + "/YQ", LOCKS + "/YQ/x/lease-0000000003",
                "/other/locks/YQ/lease-0000000003", LOCKS + "/YQ/not-a-lease"}) {
            assertThat(LeaseIds.parse(LeaseIds.FORMAT.format(path, secret), LOCKS)).as(path).isEmpty();
        }
        assertThat(LeaseIds.parse(LeaseIds.FORMAT.format(PATH, secret), "/elsewhere/locks")).isEmpty();
    }

    @Test
    void refusesMalformedIds() {
        String path64 = Base64.getUrlEncoder().encodeToString(PATH.getBytes(StandardCharsets.UTF_8));
        for (String id : new String[] {null, "", "zk1", "zk1..", "zk2." + path64 + "." + "0".repeat(32),
                "zk1." + path64 + ".short", "zk1.!!!." + "0".repeat(32), "x".repeat(20_000)}) {
            assertThat(LeaseIds.parse(id, LOCKS)).as(String.valueOf(id)).isEmpty();
        }
    }

    @Test
    void nodeDataRoundTripsEvenWithNewlinesInTheLock() {
        LeaseNodeData data = new LeaseNodeData(TokenMode.CVERSION, LeaseIdFormat.newSecret(), 1500, 123456789L, "a\nb\nc");
        assertThat(LeaseNodeData.parse(data.toBytes())).contains(data);
        assertThat(data.secretMatches(data.secret())).isTrue();
        assertThat(data.secretMatches("0".repeat(32))).isFalse();
        assertThat(LeaseNodeData.parse("junk".getBytes(StandardCharsets.UTF_8))).isEmpty();
        assertThat(LeaseNodeData.parse(null)).isEmpty();
    }

    @Test
    void nodeDataWithALockDelayRoundTripsAndWithoutOneKeepsTheOldFormat() {
        LeaseNodeData delayed = new LeaseNodeData(TokenMode.ZXID, LeaseIdFormat.newSecret(), 1500, 123456789L, "a\nb", 2500);
        assertThat(LeaseNodeData.parse(delayed.toBytes())).contains(delayed);
        LeaseNodeData plain = new LeaseNodeData(TokenMode.ZXID, LeaseIdFormat.newSecret(), 1500, 123456789L, "a\nb");
        assertThat(new String(plain.toBytes(), StandardCharsets.UTF_8)).startsWith("fg1\n");
        assertThat(LeaseNodeData.parse(plain.toBytes()).orElseThrow().lockDelayMs()).isZero();
    }
}
