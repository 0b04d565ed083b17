package io.fencegate.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The checkers on hand-made histories: each property is shown to fail, and a clean history to pass. */
class CheckerTest {
    private final List<Op> ops = new ArrayList<>();

    private Op op(int client, String f, String key, long token, String value, long prior, long invoke, long complete, Outcome outcome) {
        Op op = new Op(client, f, key, token, value, prior, invoke, complete, outcome, "", "http://127.0.0.1:8080/");
        ops.add(op);
        return op;
    }

    private List<Violation> check(Workload w, Fault... faults) {
        return Checker.check(w, ops, List.of(faults)).violations();
    }

    @Test
    void honestCounterHistoryIsValid() {
        op(1, Op.WRITE, "k", 5, "1", 0, 10, 20, Outcome.OK);
        op(2, Op.WRITE, "k", 7, "2", 5, 30, 40, Outcome.OK);
        op(3, Op.WRITE, "k", 8, "3", 0, 50, 60, Outcome.UNKNOWN);
        op(-1, Op.FINAL, "k", 0, "3", 0, 100, 110, Outcome.OK);
        assertThat(check(Workload.COUNTER)).isEmpty();
    }

    @Test
    void lostUpdateIsReportedAsDuplicateValueAndShortFinalValue() {
        // A read 0 with a plain read, B read 0 too; both wrote 1 and both were acknowledged.
        op(1, Op.WRITE, "k", 5, "1", 0, 10, 20, Outcome.OK);
        op(2, Op.WRITE, "k", 6, "1", 5, 30, 40, Outcome.OK);
        op(-1, Op.FINAL, "k", 0, "1", 0, 100, 110, Outcome.OK);
        assertThat(check(Workload.COUNTER)).extracting(Violation::kind)
                .containsExactlyInAnyOrder(Violation.DUPLICATE_VALUE, Violation.LOST_UPDATE);
    }

    @Test
    void finalValueAboveAcknowledgedAndUnknownIncrementsIsReported() {
        op(1, Op.WRITE, "k", 5, "1", 0, 10, 20, Outcome.OK);
        op(-1, Op.FINAL, "k", 0, "3", 0, 100, 110, Outcome.OK);
        assertThat(check(Workload.COUNTER)).extracting(Violation::kind).containsExactly(Violation.LOST_UPDATE);
    }

    @Test
    void staleAcknowledgementIsReported() {
        op(1, Op.WRITE, "k", 7, "1", 0, 10, 20, Outcome.OK);
        op(2, Op.WRITE, "k", 5, "2", 0, 30, 40, Outcome.OK); // sent after token 7 was acknowledged
        op(-1, Op.FINAL, "k", 0, "2", 0, 100, 110, Outcome.OK);
        assertThat(check(Workload.COUNTER)).extracting(Violation::kind).contains(Violation.STALE_ACK);
    }

    @Test
    void writeAcknowledgedWithATokenAlreadyAcknowledgedBeforeItWasSentIsStale() {
        op(1, Op.WRITE, "k", 7, "1", 0, 10, 20, Outcome.OK);
        op(2, Op.WRITE, "k", 7, "2", 0, 30, 40, Outcome.OK); // the same token, sent after the first was acknowledged
        op(-1, Op.FINAL, "k", 0, "2", 0, 100, 110, Outcome.OK);
        assertThat(check(Workload.COUNTER)).extracting(Violation::kind).contains(Violation.STALE_ACK);
    }

    @Test
    void concurrentWritesAreNotStaleAcknowledgements() {
        op(1, Op.WRITE, "k", 7, "1", 5, 10, 40, Outcome.OK);
        op(2, Op.WRITE, "k", 5, "2", 0, 20, 30, Outcome.OK); // overlaps: the store may have ordered it first
        op(-1, Op.FINAL, "k", 0, "2", 0, 100, 110, Outcome.OK);
        assertThat(check(Workload.COUNTER)).extracting(Violation::kind).doesNotContain(Violation.STALE_ACK);
    }

    @Test
    void writeAcknowledgedOverAHigherTokenBreaksTokenOrder() {
        op(1, Op.WRITE, "k", 5, "1", 9, 10, 20, Outcome.OK);
        op(-1, Op.FINAL, "k", 0, "1", 0, 100, 110, Outcome.OK);
        assertThat(check(Workload.COUNTER)).extracting(Violation::kind).containsExactly(Violation.TOKEN_ORDER);
    }

    @Test
    void acknowledgedAddMissingAtTheEndIsLost() {
        op(1, Op.WRITE, "s", 5, "c1-1", 0, 10, 20, Outcome.OK);
        op(2, Op.WRITE, "s", 6, "c2-1", 5, 30, 40, Outcome.OK);
        op(3, Op.WRITE, "s", 7, "c3-1", 0, 50, 60, Outcome.UNKNOWN);
        op(-1, Op.FINAL, "s", 0, "c2-1", 0, 100, 110, Outcome.OK);
        List<Violation> found = check(Workload.LOCK_SET);
        assertThat(found).extracting(Violation::kind).containsExactly(Violation.LOST_ADD);
        assertThat(found.get(0).detail()).contains("c1-1");
    }

    @Test
    void twoLiveLeasesOnOneLockAreReported() {
        op(1, Op.ACQUIRE, "m", 5, "1000", 0, 0, 10_000, Outcome.OK); // surely live until 1 s after it was asked
        op(2, Op.ACQUIRE, "m", 6, "1000", 0, 100_000, 200_000, Outcome.OK);
        assertThat(check(Workload.MUTEX)).extracting(Violation::kind).containsExactly(Violation.TWO_LIVE_LEASES);
    }

    @Test
    void releasedOrExpiredLeaseMayBeFollowedAtOnce() {
        op(1, Op.ACQUIRE, "m", 5, "1000", 0, 0, 10_000, Outcome.OK);
        op(1, Op.RELEASE, "m", 5, null, 0, 50_000, 60_000, Outcome.OK);
        op(2, Op.ACQUIRE, "m", 6, "1000", 0, 40_000, 70_000, Outcome.OK);
        op(3, Op.ACQUIRE, "m", 7, "1000", 0, 1_500_000, 1_510_000, Outcome.OK); // 6 expired at 1.04 s
        assertThat(check(Workload.MUTEX)).isEmpty();
    }

    @Test
    void overlapAcrossALeaseEndingFaultIsExcusedAndCounted() {
        op(1, Op.ACQUIRE, "m", 5, "1000", 0, 0, 10_000, Outcome.OK);
        op(2, Op.ACQUIRE, "m", 6, "1000", 0, 100_000, 200_000, Outcome.OK);
        Verdict v = Checker.check(Workload.MUTEX, ops, List.of(new Fault("redis-flushall", 50_000, 60_000, "", Fault.EVERYWHERE, true)));
        assertThat(v.violations()).isEmpty();
        assertThat(v.excusedOverlaps()).isEqualTo(1);
    }

    /** Client 1 holds {@code first} and releases it; then client 2 is granted {@code second}. */
    private void grantReleasedThenGranted(long first, long second) {
        op(1, Op.ACQUIRE, "m", first, "100", 0, 0, 10_000, Outcome.OK);
        op(1, Op.RELEASE, "m", first, null, 0, 20_000, 30_000, Outcome.OK);
        op(2, Op.ACQUIRE, "m", second, "100", 0, 40_000, 50_000, Outcome.OK);
    }

    @Test
    void grantRepeatingAnEarlierGrantsTokenBreaksTokenOrder() {
        grantReleasedThenGranted(9, 9);
        assertThat(check(Workload.MUTEX)).extracting(Violation::kind).containsExactly(Violation.TOKEN_ORDER);
    }

    @Test
    void grantWithATokenBelowAnEarlierGrantBreaksTokenOrder() {
        grantReleasedThenGranted(9, 8);
        assertThat(check(Workload.MUTEX)).extracting(Violation::kind).containsExactly(Violation.TOKEN_ORDER);
    }

    @Test
    void aRunRefusedByEveryCallSaysWhatTheGatewaysAnswered() {
        for (int i = 0; i < 3; i++) {
            ops.add(new Op(1, Op.ACQUIRE, "k", 0, null, 0, 10 * i, 10 * i + 5, Outcome.FAIL, "401 urn:fencegate:problem:unauthorized", "g"));
        }
        Verdict v = Checker.check(Workload.COUNTER, ops, List.of());
        Report.Summary summary = Report.summarize(v, Control.NONE, ops, List.of());
        assertThat(summary.exitCode()).isEqualTo(Report.PROVED_NOTHING);
        assertThat(summary.verdict()).isEqualTo("PROVED NOTHING: no operation was acknowledged (3 of 3 answers:"
                + " 401 urn:fencegate:problem:unauthorized: the gateways want an API key (--api-key))");
    }

    @Test
    void controlWithoutAnomalyProvesNothing() {
        op(1, Op.WRITE, "k", 5, "1", 0, 10, 20, Outcome.OK);
        op(-1, Op.FINAL, "k", 0, "1", 0, 100, 110, Outcome.OK);
        Verdict v = Checker.check(Workload.COUNTER, ops, List.of());
        assertThat(Report.summarize(v, Control.PLAIN_READS, ops, List.of()).exitCode()).isEqualTo(Report.PROVED_NOTHING);
        assertThat(Report.summarize(v, Control.NONE, ops, List.of()).exitCode()).isEqualTo(Report.VALID);
    }

    @Test
    void runWithNothingAcknowledgedProvesNothing() {
        op(1, Op.WRITE, "k", 5, "1", 0, 10, 20, Outcome.UNKNOWN);
        Verdict v = Checker.check(Workload.COUNTER, ops, List.of());
        assertThat(Report.summarize(v, Control.NONE, ops, List.of()).exitCode()).isEqualTo(Report.PROVED_NOTHING);
    }
}
