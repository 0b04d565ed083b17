package io.fencegate.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rw checker on hand-made histories of one lock: read leases share it, a write lease shares it
 * with nothing, every grant's token is fresh whatever its mode, a read lease's token never writes,
 * and the fence a reader raised holds lower writers off.
 */
class ReadWriteExclusionTest {
    private static final String GW = "http://127.0.0.1:18081/";
    private static final String K = "k";

    private final List<Op> ops = new ArrayList<>();

    /** A grant asked at {@code askedMs}, answered at {@code answeredMs}; {@code read}: a read lease. */
    private void grant(int client, long token, boolean read, long askedMs, long answeredMs) {
        ops.add(new Op(client, Op.ACQUIRE, K, token, "1000", 0, askedMs * 1000, answeredMs * 1000, Outcome.OK, "", GW)
                .withLease(read ? Op.READ_MODE : null, null, null));
    }

    private void release(int client, long token, boolean read, long atMs) {
        ops.add(new Op(client, Op.RELEASE, K, token, null, 0, atMs * 1000, atMs * 1000 + 1000, Outcome.OK, "", GW)
                .withLease(read ? Op.READ_MODE : null, null, null));
    }

    private void op(int client, String f, long token, String value, long prior, long atMs) {
        ops.add(new Op(client, f, K, token, value, prior, atMs * 1000, atMs * 1000 + 1000, Outcome.OK, "", GW));
    }

    private List<String> kinds() {
        Verdict v = Checker.check(Workload.RW, ops, List.of());
        return v.violations().stream().map(Violation::kind).toList();
    }

    @Test
    void readLeasesShareTheLock() {
        grant(1, 1, true, 0, 1);
        grant(2, 2, true, 10, 11);
        grant(3, 3, true, 20, 21);
        assertThat(kinds()).isEmpty();
    }

    @Test
    void aWriteLeaseGrantedWhileAReadLeaseIsSurelyLiveIsTwoLiveLeases() {
        grant(1, 7, true, 0, 2);
        grant(2, 8, false, 250, 300); // read 7 is held until its release at 900 ms
        release(2, 8, false, 330);
        release(1, 7, true, 900);
        assertThat(kinds()).containsExactly(Violation.TWO_LIVE_LEASES);
    }

    @Test
    void aReadLeaseGrantedWhileAWriteLeaseIsSurelyLiveIsTwoLiveLeases() {
        grant(1, 3, false, 0, 2);
        grant(2, 4, true, 100, 200);
        assertThat(kinds()).containsExactly(Violation.TWO_LIVE_LEASES);
    }

    @Test
    void aReadWaiterIsGrantedNoEarlierThanTheWriteBeforeItCouldEnd() {
        grant(1, 1, false, 0, 1); // surely held until 1000 ms
        grant(2, 2, true, 0, 1500); // waited: its ttl started no earlier than 1000 ms, so it is held until 2000 ms
        grant(3, 3, false, 1700, 1800);
        assertThat(kinds()).containsExactly(Violation.TWO_LIVE_LEASES);
    }

    @Test
    void aReadLeaseWaitsForNoLowerReadLease() {
        grant(1, 1, true, 0, 1); // held until 1000 ms
        grant(2, 2, true, 0, 900); // shares the lock with read 1: its ttl may have started at 0, so it may end at 1000 ms
        grant(3, 3, false, 1400, 1500);
        assertThat(kinds()).isEmpty();
    }

    @Test
    void tokensGrowInGrantOrderWhateverTheMode() {
        grant(1, 9, true, 0, 2);
        release(1, 9, true, 10);
        grant(2, 5, false, 20, 22);
        assertThat(kinds()).containsExactly(Violation.TOKEN_ORDER);
    }

    @Test
    void aWriteWithAReadLeasesTokenIsAViolation() {
        grant(1, 6, true, 0, 2);
        op(1, Op.READ, 6, null, 0, 5);
        op(1, Op.WRITE, 6, "1", 0, 10);
        release(1, 6, true, 20);
        op(-1, Op.FINAL, 0, "1", 6, 100);
        assertThat(kinds()).containsExactly(Violation.READ_TOKEN_WRITE);
    }

    @Test
    void aReadersFenceHoldsALowerWriterOff() {
        grant(1, 3, false, 0, 2);
        op(1, Op.READ, 3, null, 0, 5);
        release(1, 3, false, 10); // released: the reader's lease does not overlap it
        grant(2, 4, true, 20, 22);
        op(2, Op.READ, 4, null, 0, 25);
        release(2, 4, true, 30);
        op(1, Op.WRITE, 3, "1", 0, 40); // the writer wakes and writes below the reader's fence: acknowledged
        op(-1, Op.FINAL, 0, "1", 3, 100);
        assertThat(kinds()).containsExactly(Violation.FENCE_BROKEN);
    }

    @Test
    void theItemIsACounter() {
        grant(1, 3, false, 0, 2);
        op(1, Op.READ, 3, null, 0, 5);
        op(1, Op.WRITE, 3, "1", 0, 10);
        release(1, 3, false, 20);
        op(-1, Op.FINAL, 0, null, 0, 100); // the acknowledged increment is gone
        assertThat(kinds()).contains(Violation.LOST_UPDATE);
    }
}
