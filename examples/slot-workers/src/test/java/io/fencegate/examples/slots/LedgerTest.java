package io.fencegate.examples.slots;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The example's verdict on a partition: it must catch what an unfenced late write does to it. */
class LedgerTest {

    @Test
    void aPartitionWrittenJobByJobByOneHolderThenTheNextIsIntact() {
        String text = Ledger.parse("").withNextJob(0, 10);
        text = Ledger.parse(text).withNextJob(0, 10);
        text = Ledger.parse(text).withNextJob(2, 30);
        Ledger ledger = Ledger.parse(text);
        assertThat(ledger.problems()).isEmpty();
        assertThat(ledger.lastJob()).isEqualTo(3);
        assertThat(ledger.holders()).isEqualTo("worker 0 (token 10) jobs 1-2, worker 2 (token 30) jobs 3-3");
    }

    @Test
    void aLateWriteFromAStaleReadIsCaughtAsJobsOutOfOrderAndATokenGoingDown() {
        String stale = Ledger.parse("").withNextJob(0, 10);          // worker 0 read this, then froze
        String successor = Ledger.parse(Ledger.parse(stale).withNextJob(2, 30)).withNextJob(2, 30);
        // Unfenced, worker 0's write of job 2 would replace the partition: the successor's jobs are gone.
        Ledger overwritten = Ledger.parse(Ledger.parse(stale).withNextJob(0, 10));
        assertThat(overwritten.problems()).as("in order, so the order alone cannot tell").isEmpty();
        assertThat(overwritten.hasJobAfter(1, 10)).as("a job past the one it read, under its token").isTrue();
        assertThat(Ledger.parse(successor).hasJobAfter(1, 10)).isFalse();
        // Appended after the successor's lines instead (a store that merged the write), it shows as disorder.
        String appended = successor + "job 2 worker 0 token 10\n";
        assertThat(Ledger.parse(appended).problems()).contains("line 4 is job 2").contains("below the job before it");
    }
}
