package io.fencegate.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rules reads add to {@code counter} and {@code lock-set} (each item a register): a fenced read
 * raises a fence no lower token may write past, a read shows every write acknowledged before it was
 * sent, and a run whose final reads all failed proves little. Unknown writes may have applied or not,
 * and mask none of it.
 */
class ReadRulesTest {
    private static final String GW = "http://127.0.0.1:18081/";
    private final List<Op> ops = new ArrayList<>();

    private void op(int client, String f, long token, String value, long prior, long invokeMs, long completeMs, Outcome outcome) {
        ops.add(new Op(client, f, "k", token, value, prior, invokeMs * 1000, completeMs * 1000, outcome, "", GW));
    }

    private Verdict check(Workload w) {
        return Checker.check(w, ops, List.of());
    }

    private Report.Summary summary(Workload w) {
        return Report.summarize(check(w), Control.NONE, ops, List.of());
    }

    @Test
    void writeBelowTheFenceARaisedReadIsAViolationEvenWhenTheSuccessorsWriteEndsUnknown() {
        op(1, Op.READ, 10, null, 0, 0, 10, Outcome.OK); // token 10 reads: missing
        op(2, Op.READ, 11, null, 0, 100, 110, Outcome.OK); // its successor, token 11, fences the item
        op(1, Op.WRITE, 10, "1", 0, 200, 210, Outcome.OK); // the paused holder's write: must have been refused
        op(2, Op.WRITE, 11, "1", 0, 300, 310, Outcome.UNKNOWN); // no duplicate value is acknowledged
        op(-1, Op.FINAL, 0, "1", 10, 400, 410, Outcome.OK);
        Verdict v = check(Workload.COUNTER);
        assertThat(v.violations()).extracting(Violation::kind).containsExactly(Violation.FENCE_BROKEN);
        assertThat(v.violations().get(0).detail()).contains("token 10").contains("token 11");
    }

    @Test
    void writeSentBeforeTheFencedReadAnsweredMayHaveComeFirst() {
        op(2, Op.READ, 11, null, 0, 100, 300, Outcome.OK);
        op(1, Op.WRITE, 10, "1", 0, 200, 210, Outcome.OK); // concurrent with the read: the store may have ordered it first
        op(2, Op.WRITE, 11, "2", 10, 400, 410, Outcome.OK);
        op(-1, Op.FINAL, 0, "2", 11, 500, 510, Outcome.OK);
        assertThat(check(Workload.COUNTER).violations()).isEmpty();
    }

    @Test
    void refusedOrUnknownFencedReadRaisesNoFenceToJudgeBy() {
        op(2, Op.READ, 11, null, 0, 100, 110, Outcome.FAIL);
        op(3, Op.READ, 12, null, 0, 120, 130, Outcome.UNKNOWN);
        op(1, Op.WRITE, 10, "1", 0, 200, 210, Outcome.OK);
        op(-1, Op.FINAL, 0, "1", 10, 400, 410, Outcome.OK);
        assertThat(check(Workload.COUNTER).violations()).isEmpty();
    }

    @Test
    void readOlderThanAnAcknowledgedWriteIsAViolationThoughAnUnknownRewriteMakesTheFinalValueAddUp() {
        op(1, Op.WRITE, 5, "1", 0, 0, 10, Outcome.OK);
        op(2, Op.WRITE, 6, "2", 5, 20, 30, Outcome.OK);
        op(3, Op.WRITE, 7, "3", 6, 40, 50, Outcome.OK);
        op(4, Op.READ, 8, "2", 6, 100, 110, Outcome.OK); // the write of 3 was acknowledged before this read was sent
        op(4, Op.WRITE, 8, "3", 0, 200, 210, Outcome.UNKNOWN); // rewrites 3: final value 3 = 3 acknowledged
        op(-1, Op.FINAL, 0, "3", 8, 300, 310, Outcome.OK);
        Verdict v = check(Workload.COUNTER);
        assertThat(v.violations()).extracting(Violation::kind).containsExactly(Violation.STALE_READ);
        assertThat(v.violations().get(0).detail()).contains("'2'").contains("'3' with token 7");
    }

    @Test
    void plainReadConcurrentWithAWriteMayReturnEitherValue() {
        op(1, Op.WRITE, 5, "1", 0, 0, 10, Outcome.OK);
        op(2, Op.WRITE, 6, "2", 5, 20, 130, Outcome.OK);
        op(3, Op.READ, 0, "1", 5, 100, 110, Outcome.OK); // a plain read sent before the write of 2 was acknowledged
        op(-1, Op.FINAL, 0, "2", 6, 300, 310, Outcome.OK);
        assertThat(check(Workload.COUNTER).violations()).isEmpty();
    }

    @Test
    void setReadMissingAnAddAcknowledgedBeforeItIsStale() {
        op(1, Op.WRITE, 5, "c1-1", 0, 0, 10, Outcome.OK);
        op(2, Op.WRITE, 6, "c2-1", 5, 20, 30, Outcome.OK);
        op(3, Op.READ, 7, "c1-1", 5, 100, 110, Outcome.OK);
        op(-1, Op.FINAL, 0, "c1-1,c2-1", 6, 300, 310, Outcome.OK);
        assertThat(check(Workload.LOCK_SET).violations()).extracting(Violation::kind).containsExactly(Violation.STALE_READ);
    }

    @Test
    void readOfAnOlderTokenIsStaleWhateverItsValue() {
        op(1, Op.WRITE, 5, "1", 0, 0, 10, Outcome.OK);
        op(2, Op.WRITE, 6, "2", 5, 20, 30, Outcome.OK);
        op(3, Op.READ, 7, "2", 5, 100, 110, Outcome.OK); // the value matches, the token of the write it read does not
        op(-1, Op.FINAL, 0, "2", 6, 300, 310, Outcome.OK);
        assertThat(check(Workload.COUNTER).violations()).extracting(Violation::kind).containsExactly(Violation.STALE_READ);
    }

    @Test
    void runWithoutAFinalReadProvesLittle() {
        op(1, Op.WRITE, 5, "1", 0, 0, 10, Outcome.OK);
        op(-1, Op.FINAL, 0, null, 0, 300, 310, Outcome.UNKNOWN);
        Report.Summary s = summary(Workload.COUNTER);
        assertThat(s.exitCode()).as(s.verdict()).isEqualTo(Report.PROVED_NOTHING);
        assertThat(s.verdict()).startsWith("PROVED LITTLE").contains("no final read of k");
        ops.clear();
        op(1, Op.WRITE, 5, "c1-1", 0, 0, 10, Outcome.OK);
        Report.Summary set = summary(Workload.LOCK_SET);
        assertThat(set.exitCode()).as(set.verdict()).isEqualTo(Report.PROVED_NOTHING);
    }

    @Test
    void violationFoundWithoutAFinalReadIsStillAViolation() {
        op(1, Op.WRITE, 7, "1", 0, 0, 10, Outcome.OK);
        op(2, Op.WRITE, 5, "2", 0, 30, 40, Outcome.OK);
        assertThat(summary(Workload.COUNTER).exitCode()).isEqualTo(Report.VIOLATIONS);
    }
}
