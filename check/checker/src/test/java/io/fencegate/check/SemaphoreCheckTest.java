package io.fencegate.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The semaphore checker on hand-made histories of one semaphore of 2 permits: never more than 2
 * holders surely live at once, no slot beyond the count, per slot the mutex's rules, and each
 * slot's item a counter.
 */
class SemaphoreCheckTest {
    private static final String GW = "http://127.0.0.1:18081/";
    private static final String S = "s";
    private static final int PERMITS = 2;

    private final List<Op> ops = new ArrayList<>();
    private final List<Fault> faults = new ArrayList<>();

    /** A permit in {@code slot}, asked at {@code atMs}, answered 1 ms later, ttl 1000 ms. */
    private void permit(int client, int slot, long token, long atMs) {
        ops.add(new Op(client, Op.ACQUIRE, S, token, "1000", 0, atMs * 1000, atMs * 1000 + 1000, Outcome.OK, "", GW)
                .withLease(null, slot, PERMITS));
    }

    private void release(int client, int slot, long token, long atMs) {
        ops.add(new Op(client, Op.RELEASE, S, token, null, 0, atMs * 1000, atMs * 1000 + 1000, Outcome.OK, "", GW)
                .withLease(null, slot, null));
    }

    private void item(int client, int slot, String f, long token, String value, long atMs) {
        ops.add(new Op(client, f, S + "/" + slot, token, value, 0, atMs * 1000, atMs * 1000 + 1000, Outcome.OK, "", GW));
    }

    private List<String> kinds() {
        Verdict v = Checker.check(Workload.SEMAPHORE, ops, faults);
        return v.violations().stream().map(Violation::kind).toList();
    }

    @Test
    void asManyHoldersAsPermitsIsValid() {
        permit(1, 0, 1, 0);
        permit(2, 1, 1, 10); // each slot has its own token sequence
        release(1, 0, 1, 100);
        permit(3, 0, 2, 200);
        assertThat(kinds()).isEmpty();
    }

    @Test
    void oneHolderMoreThanPermitsIsAViolation() {
        permit(1, 0, 1, 0);
        permit(2, 1, 1, 10);
        permit(3, 0, 2, 100); // three live at once, two of them in slot 0
        assertThat(kinds()).containsExactlyInAnyOrder(Violation.PERMITS_EXCEEDED, Violation.TWO_LIVE_LEASES);
    }

    @Test
    void aSlotBeyondTheCountIsAViolation() {
        permit(1, 2, 1, 0);
        assertThat(kinds()).containsExactly(Violation.PERMITS_EXCEEDED);
    }

    @Test
    void twoHoldersOfOneSlotAreTwoLiveLeasesWithinTheCount() {
        permit(1, 1, 4, 0);
        permit(2, 1, 5, 200);
        assertThat(kinds()).containsExactly(Violation.TWO_LIVE_LEASES);
    }

    @Test
    void tokensGrowPerSlot() {
        permit(1, 1, 7, 0);
        release(1, 1, 7, 10);
        permit(2, 1, 6, 20);
        assertThat(kinds()).containsExactly(Violation.TOKEN_ORDER);
    }

    @Test
    void aFaultThatEndsLeasesExcusesTheCountToo() {
        permit(1, 0, 1, 0);
        permit(2, 1, 1, 10);
        faults.add(new Fault("redis-flushall", 50_000, 60_000, "", Fault.EVERYWHERE, true));
        permit(3, 0, 2, 100); // the flush ended both earlier permits
        Verdict v = Checker.check(Workload.SEMAPHORE, ops, faults);
        assertThat(v.violations()).isEmpty();
        assertThat(v.excusedOverlaps()).isEqualTo(1);
    }

    @Test
    void eachSlotsItemIsACounter() {
        permit(1, 0, 3, 0);
        item(1, 0, Op.READ, 0, null, 5); // a plain read: no fence
        permit(2, 0, 4, 1100); // 3's ttl ran out
        item(2, 0, Op.READ, 0, null, 1105);
        item(1, 0, Op.WRITE, 3, "1", 1110);
        item(2, 0, Op.WRITE, 4, "1", 1120);
        item(-1, 0, Op.FINAL, 0, "1", 2000);
        assertThat(kinds()).containsExactlyInAnyOrder(Violation.DUPLICATE_VALUE, Violation.LOST_UPDATE);
    }
}
