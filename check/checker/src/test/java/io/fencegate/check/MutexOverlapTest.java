package io.fencegate.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The mutex checker's overlaps on hand-made grant histories: every pair of leases live at once is
 * judged on its own, and only a lease-ending fault in the earlier lease's scope, between the two
 * grants, excuses it.
 */
class MutexOverlapTest {
    static final String GW1 = "http://127.0.0.1:18081/";
    static final String GW2 = "http://127.0.0.1:18082/";

    private final List<Op> ops = new ArrayList<>();

    /** A grant asked at {@code atMs} and answered 1 ms later. */
    private void grant(int client, String gateway, long token, long ttlMs, long atMs) {
        ops.add(new Op(client, Op.ACQUIRE, "m", token, Long.toString(ttlMs), 0, atMs * 1000, atMs * 1000 + 1000,
                Outcome.OK, "", gateway));
    }

    private static Fault fault(String kind, long fromMs, long toMs, String scope) {
        return new Fault(kind, fromMs * 1000, toMs * 1000, "", scope, true);
    }

    private Verdict check(Fault... faults) {
        return Checker.check(Workload.MUTEX, ops, List.of(faults));
    }

    private static String printed(Verdict v) {
        return "violations=" + v.violations().size() + " excused=" + v.excusedOverlaps() + " " + v.violations();
    }

    @Test
    void doubleGrantAfterAnExcusedOverlapIsStillAViolation() {
        grant(1, GW1, 5, 1000, 0);
        grant(2, GW1, 6, 700, 200); // FLUSHALL at 100 ms ended lease 5: excused
        grant(3, GW1, 7, 1000, 300); // 6 is live until 900 ms and nothing ended it: a double grant
        Verdict v = check(fault("redis-flushall", 100, 110, Fault.EVERYWHERE));
        assertThat(v.violations()).as(printed(v)).singleElement()
                .satisfies(x -> assertThat(x.detail()).contains("token 7").contains("token 6"));
        assertThat(v.excusedOverlaps()).as(printed(v)).isEqualTo(2);
    }

    @Test
    void faultOnAnotherGatewayExcusesNothing() {
        grant(1, GW1, 5, 1000, 0);
        grant(2, GW2, 6, 1000, 100); // 900 ms overlap; the session that expired was GW2's, not lease 5's
        Verdict v = check(fault("zk-session-expiry", 20, 80, GW2));
        assertThat(v.violations()).as(printed(v)).extracting(Violation::kind).containsExactly(Violation.TWO_LIVE_LEASES);
        assertThat(v.excusedOverlaps()).as(printed(v)).isZero();
    }

    @Test
    void faultOnTheEarlierLeasesGatewayExcusesTheOverlap() {
        grant(1, GW1, 5, 1000, 0);
        grant(2, GW2, 6, 1000, 100);
        Verdict v = check(fault("zk-session-expiry", 20, 80, GW1));
        assertThat(v.violations()).as(printed(v)).isEmpty();
        assertThat(v.excusedOverlaps()).as(printed(v)).isEqualTo(1);
    }

    @Test
    void leaseOfAnUnknownGatewayIsExcusedOnlyByAFaultEverywhere() {
        grant(1, null, 5, 1000, 0); // a history written before operations named their gateway
        grant(2, null, 6, 1000, 100);
        Verdict scoped = check(fault("zk-session-expiry", 20, 80, GW1));
        assertThat(scoped.violations()).as(printed(scoped)).hasSize(1);
        Verdict everywhere = check(fault("redis-flushall", 20, 80, Fault.EVERYWHERE));
        assertThat(everywhere.violations()).as(printed(everywhere)).isEmpty();
        assertThat(everywhere.excusedOverlaps()).isEqualTo(1);
    }

    @Test
    void faultThatEndsNoLeaseExcusesNothing() {
        grant(1, GW1, 5, 1000, 0);
        grant(2, GW1, 6, 1000, 100);
        Verdict v = check(new Fault("db-link-cut", 20_000, 80_000, "", Fault.EVERYWHERE, false));
        assertThat(v.violations()).as(printed(v)).hasSize(1);
    }

    @Test
    void faultBeforeBothGrantsExcusesNothing() {
        grant(1, GW1, 5, 1000, 100);
        grant(2, GW1, 6, 1000, 200);
        Verdict v = check(fault("redis-flushall", 10, 50, Fault.EVERYWHERE));
        assertThat(v.violations()).as(printed(v)).hasSize(1);
    }

    @Test
    void everyLiveLeaseIsComparedNotOnlyTheLongestLived() {
        grant(1, GW1, 5, 5000, 0); // long-lived, ended early by GW1's session loss
        grant(2, GW2, 6, 1000, 200); // excused against 5
        grant(3, GW2, 7, 1000, 400); // excused against 5, but 6 (GW2) is live until 1.2 s: a violation
        grant(4, GW2, 8, 1000, 1300); // 5 ended, 6 expired; 7 is live until 1.4 s: a violation
        Verdict v = check(fault("zk-session-expiry", 100, 150, GW1));
        assertThat(v.violations()).as(printed(v)).extracting(Violation::detail)
                .anySatisfy(d -> assertThat(d).contains("token 7").contains("token 6"))
                .anySatisfy(d -> assertThat(d).contains("token 8").contains("token 7"));
        assertThat(v.violations()).as(printed(v)).hasSize(2);
        assertThat(v.excusedOverlaps()).as(printed(v)).isEqualTo(3); // (5,6), (5,7), (5,8)
    }

    @Test
    void longHistoriesAreSweptNotComparedPairwise() {
        // 200,000 grants one after another, each released before the next; one double grant at the end.
        int n = 200_000;
        for (int i = 0; i < n; i++) {
            long at = i * 10L;
            ops.add(new Op(i % 16, Op.ACQUIRE, "m", i + 1, "1000", 0, at * 1000, at * 1000 + 1000, Outcome.OK, "", GW1));
            ops.add(new Op(i % 16, Op.RELEASE, "m", i + 1, null, 0, at * 1000 + 5000, at * 1000 + 6000, Outcome.OK, "", GW1));
        }
        grant(99, GW1, n + 1, 1000, n * 10L);
        grant(98, GW2, n + 2, 1000, n * 10L + 100);
        Verdict v = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> check());
        assertThat(v.violations()).as(printed(v)).hasSize(1);
    }

    /** A grant asked at {@code askMs} and answered at {@code answerMs}: a waiter when that is long after. */
    private void grant(int client, String gateway, long token, long ttlMs, long askMs, long answerMs) {
        ops.add(new Op(client, Op.ACQUIRE, "m", token, Long.toString(ttlMs), 0, askMs * 1000, answerMs * 1000, Outcome.OK, "", gateway));
    }

    private void release(int client, String gateway, long token, long atMs, Outcome outcome) {
        ops.add(new Op(client, Op.RELEASE, "m", token, null, 0, atMs * 1000, atMs * 1000 + 1000, outcome, "", gateway));
    }

    @Test
    void doubleGrantToALongWaiterIsAViolation() {
        grant(1, GW1, 5, 1000, 0, 1); // pauses past its ttl: expires at 1 s at the earliest
        grant(2, GW1, 6, 1000, 5, 1010); // waited 1 s, more than its ttl; its ttl started at 1 s at the earliest
        release(1, GW1, 5, 1900, Outcome.FAIL);
        grant(3, GW2, 7, 1000, 1500, 1510); // 6 is surely held until 2 s
        Verdict v = check();
        assertThat(v.violations()).as(printed(v)).singleElement()
                .satisfies(x -> assertThat(x.detail()).contains("token 7").contains("token 6").contains("when token 5 could first have ended"));
    }

    @Test
    void waitersGrantedOneAfterAnotherAreValid() {
        grant(1, GW1, 5, 1000, 0, 1);
        grant(2, GW1, 6, 1000, 5, 1010); // granted when 5 expired
        grant(3, GW2, 7, 1000, 10, 2005); // waited two ttls: granted when 6 expired (2 s at the earliest)
        release(1, GW1, 5, 1900, Outcome.FAIL);
        release(2, GW1, 6, 2100, Outcome.FAIL);
        grant(4, GW2, 8, 1000, 1500, 2510); // granted when 7 was released
        release(3, GW2, 7, 2500, Outcome.OK);
        Verdict v = check();
        assertThat(v.violations()).as(printed(v)).isEmpty();
    }

    @Test
    void grantAnsweredBeforeALowerTokensLeaseEndedIsADoubleGrantWhicheverAnswerCameFirst() {
        grant(1, GW1, 5, 1000, 0, 300); // its answer was slow
        grant(2, GW2, 6, 1000, 100, 200); // a higher token, answered first, while 5 was held (granted before 200 ms)
        Verdict v = check();
        assertThat(v.violations()).as(printed(v)).extracting(Violation::kind).containsExactly(Violation.TWO_LIVE_LEASES);
    }

    @Test
    void renewedLeaseIsHeldUntilTheRenewsRequestPlusItsTtl() {
        grant(1, GW1, 5, 1000, 0, 1);
        ops.add(new Op(1, Op.RENEW, "m", 5, "1000", 0, 800_000, 810_000, Outcome.OK, "", GW1));
        grant(2, GW2, 6, 1000, 1500, 1510); // 5 is held until 1.8 s
        Verdict v = check();
        assertThat(v.violations()).as(printed(v)).extracting(Violation::kind).containsExactly(Violation.TWO_LIVE_LEASES);
    }

    @Test
    void leaseRenewedAfterItsSuccessorWasGrantedWasNeverEnded() {
        grant(1, GW1, 5, 1000, 0, 1); // pauses past its ttl
        grant(2, GW2, 6, 1000, 5, 1010); // granted when 5 expired
        ops.add(new Op(1, Op.RENEW, "m", 5, "1000", 0, 1_200_000, 1_210_000, Outcome.OK, "", GW1)); // must be refused
        Verdict v = check();
        assertThat(v.violations()).as(printed(v)).extracting(Violation::kind).containsExactly(Violation.TWO_LIVE_LEASES);
    }

    @Test
    void gatewayKillExcusesOnlyLeasesOfTheKilledProcess() {
        // gateway 1 killed at 1 s (gone at 1.05 s), healthy again at 6 s
        Fault kill = new Fault("gateway-kill", 1_000_000, 6_000_000, "", GW1, true, 1_050_000);
        grant(1, GW1, 5, 3000, 900, 901); // the killed process's session: its lease ends with it
        grant(2, GW2, 6, 1000, 2000, 2001); // excused: 5 may have ended at the kill
        release(2, GW2, 6, 2500, Outcome.OK);
        grant(3, GW1, 7, 1000, 4900, 4901); // asked 3.9 s after the kill: the restarted process, a new session
        grant(4, GW2, 8, 1000, 5200, 5201); // 7 is held until 5.9 s, and the kill cannot have ended it
        Verdict v = check(kill);
        assertThat(v.violations()).as(printed(v)).singleElement()
                .satisfies(x -> assertThat(x.detail()).contains("token 8").contains("token 7"));
        assertThat(v.excusedOverlaps()).as(printed(v)).isEqualTo(1);
    }
}
