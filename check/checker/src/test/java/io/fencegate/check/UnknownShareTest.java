package io.fencegate.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Unknown operations are never judged, so a run with many of them proves little: the share of
 * unknowns is reported per fault window and outside them, and more than 5% outside them exits 2.
 */
class UnknownShareTest {
    private static final String GW = "http://127.0.0.1:18081/";
    private final List<Op> ops = new ArrayList<>();

    /** {@code n} grants one after another from {@code fromMs}, 10 ms apart; the first {@code unknown} of them unknown. */
    private void grants(long fromMs, int n, int unknown) {
        for (int i = 0; i < n; i++) {
            long at = (fromMs + i * 10L) * 1000;
            Outcome outcome = i < unknown ? Outcome.UNKNOWN : Outcome.OK;
            ops.add(new Op(1, Op.ACQUIRE, "m", outcome == Outcome.OK ? fromMs + i + 1 : 0, "100", 0, at, at + 1000, outcome, "", GW));
            if (outcome == Outcome.OK) {
                ops.add(new Op(1, Op.RELEASE, "m", fromMs + i + 1, null, 0, at + 2000, at + 3000, Outcome.OK, "", GW));
            }
        }
    }

    private Report.Summary summary(Fault... faults) {
        Verdict v = Checker.check(Workload.MUTEX, ops, List.of(faults));
        return Report.summarize(v, Control.NONE, ops, List.of(faults));
    }

    @Test
    void moreThanFivePercentUnknownOutsideFaultsProvesLittle() {
        grants(0, 100, 6);
        Report.Summary s = summary();
        assertThat(s.exitCode()).as(s.verdict()).isEqualTo(Report.PROVED_NOTHING);
        assertThat(s.verdict()).contains("6.0%").contains("5%");
    }

    @Test
    void unknownsInsideFaultWindowsDoNotCountAgainstTheFaultFreeShare() {
        grants(0, 100, 0);
        grants(10_000, 100, 60); // all inside the fault below
        Report.Summary s = summary(new Fault("gateway-kill", 9_990_000, 11_100_000, "", GW, true));
        assertThat(s.exitCode()).as(s.verdict()).isEqualTo(Report.VALID);
    }

    @Test
    void tablesShowTheUnknownSharePerWindowAndSayWhatOpsAndFailCount() {
        grants(0, 100, 0);
        grants(10_000, 10, 4);
        ops.add(new Op(1, Op.RELEASE, "m", 3, null, 0, 50_000, 51_000, Outcome.FAIL, "410 gone", GW));
        String printed = Report.tables(summary(new Fault("gateway-kill", 9_990_000, 11_100_000, "", GW, true)));
        assertThat(printed).contains("ops are grants asked for").contains("fail counts acquires answered 423")
                .contains("releases: 107, of which 1 answered 410 gone")
                .containsPattern("gateway-kill +1 +1\\.1 +10 +6 +0 +4 +40\\.0%")
                .containsPattern("\\(no fault\\) +0 +0\\.0 +100 +100 +0 +0 +0\\.0%")
                .contains("windows with the most unknowns");
    }
}
