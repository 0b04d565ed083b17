package io.fencegate.issuer.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.curator.utils.PathUtils;
import org.junit.jupiter.api.Test;

class LockNodesTest {

    private final LockNodes nodes = new LockNodes("/fencegate");

    @Test
    void anyLockNameBecomesOneValidNodeName() {
        for (String lock : List.of("a", "store/docs/2026/report.txt", ".", "..", "ünïcødé/日本語/🔒", "x".repeat(4096))) {
            String path = nodes.lockPath(lock);
            PathUtils.validatePath(path);
            assertThat(path).startsWith("/fencegate/locks/");
            assertThat(path.substring("/fencegate/locks/".length())).doesNotContain("/").isNotIn(".", "..");
        }
    }

    @Test
    void distinctNamesGetDistinctNodes() {
        assertThat(nodes.lockPath("a/b")).isNotEqualTo(nodes.lockPath("a_b")).isNotEqualTo(nodes.lockPath("a%2Fb"));
        assertThat(nodes.grantsPath("a")).isNotEqualTo(nodes.grantsPath("A"));
    }

    @Test
    void queueOrdersLeaseNodesBySequenceIgnoringProtectionPrefixAndStrangers() {
        List<String> queue = LockNodes.queue(List.of(
                "_c_b6c3-lease-0000000012", "_c_0a1f-lease-0000000003", "stranger", "lease-0000000007"));
        assertThat(queue).containsExactly("_c_0a1f-lease-0000000003", "lease-0000000007", "_c_b6c3-lease-0000000012");
        assertThat(LockNodes.sequenceOf("_c_b6c3-lease-0000000012")).isEqualTo(12);
    }

    @Test
    void grantNamesSortLikeTheirTokens() {
        assertThat(nodes.grantPath("a", 9).compareTo(nodes.grantPath("a", 10))).isNegative();
        assertThat(nodes.grantPath("a", Long.MAX_VALUE)).endsWith("/" + Long.MAX_VALUE);
    }

    @Test
    void grantNamesAreTheZeroPaddedNamesOtherIssuersRead() {
        for (long token : new long[] {1, 9, 10, 4294967301L, 999_999_999_999_999_999L, 1_000_000_000_000_000_000L,
                Long.MAX_VALUE, 0, -5}) {
            assertThat(LockNodes.grantName(token)).isEqualTo(String.format("%019d", token));
        }
        java.util.Random random = new java.util.Random(18);
        for (int i = 0; i < 10_000; i++) {
            long token = random.nextLong() >>> random.nextInt(64);
            assertThat(LockNodes.grantName(token)).isEqualTo(String.format("%019d", token));
        }
    }

    @Test
    void aLeaseNodesNameSaysItsModeAndWhetherItIsAPermitAndQueuesWithTheOthers() {
        String write = "_c_3f2a9c1e-0b1d-4e2f-9a7b-c0ffee123456-lease-0000000001";
        String read = "_c_3f2a9c1e-0b1d-4e2f-9a7b-c0ffee123457-" + LockNodes.leaseNodePrefix(io.fencegate.issuer.LeaseMode.READ, false) + "0000000002";
        String permit = "_c_3f2a9c1e-0b1d-4e2f-9a7b-c0ffee123458-" + LockNodes.leaseNodePrefix(io.fencegate.issuer.LeaseMode.WRITE, true) + "0000000003";
        assertThat(List.of(write, read, permit)).allMatch(LockNodes::isLeaseNode);
        assertThat(LockNodes.queue(List.of(permit, read, write))).containsExactly(write, read, permit);
        assertThat(List.of(write, read, permit)).extracting(LockNodes::modeOf).containsExactly(
                io.fencegate.issuer.LeaseMode.WRITE, io.fencegate.issuer.LeaseMode.READ, io.fencegate.issuer.LeaseMode.WRITE);
        assertThat(List.of(write, read, permit)).extracting(LockNodes::isPermit).containsExactly(false, false, true);
        assertThat(LockNodes.modeOf("lease-0000000007")).isEqualTo(io.fencegate.issuer.LeaseMode.WRITE);
    }
}
