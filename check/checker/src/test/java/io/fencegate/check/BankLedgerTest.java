package io.fencegate.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The bank's checker on long generated histories of a correct bank (transfers applied one at a
 * time, unknown ones applied or not, reads of every account between them): nothing is reported,
 * and one planted fault in them is.
 */
class BankLedgerTest {
    private static final List<String> ACCOUNTS = List.of("b/bank-0", "b/bank-1", "b/bank-2", "b/bank-3", "b/bank-4");

    /** A history of a correct bank: {@code transfers} transfers, every 5th unknown (half of those applied), a read every 4th. */
    private static List<Op> correctBank(int transfers, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Op> ops = new ArrayList<>();
        Map<String, BankEntry> state = new LinkedHashMap<>();
        ACCOUNTS.forEach(a -> state.put(a, new BankEntry(100, BankEntry.INIT, BankEntry.NONE)));
        long t = 1_000_000;
        ops.add(write(0, t, Outcome.OK, state));
        for (int i = 1; i <= transfers; i++) {
            t += 1000;
            int x = random.nextInt(ACCOUNTS.size());
            int y = (x + 1 + random.nextInt(ACCOUNTS.size() - 1)) % ACCOUNTS.size();
            BankEntry a = state.get(ACCOUNTS.get(x));
            BankEntry b = state.get(ACCOUNTS.get(y));
            long amount = Math.min(a.balance(), 1 + random.nextInt(20));
            String id = (i % 16) + "-" + i;
            Map<String, BankEntry> next = new LinkedHashMap<>();
            next.put(ACCOUNTS.get(x), new BankEntry(a.balance() - amount, id, a.transfer()));
            next.put(ACCOUNTS.get(y), new BankEntry(b.balance() + amount, id, b.transfer()));
            boolean unknown = i % 5 == 0;
            boolean applied = !unknown || random.nextBoolean();
            ops.add(write(i % 16, t, unknown ? Outcome.UNKNOWN : Outcome.OK, next));
            if (applied) {
                state.putAll(next);
            }
            if (i % 4 == 0) {
                ops.add(read(Op.READ, 20, t + 600, state));
            }
        }
        ops.add(read(Op.FINAL, -1, t + 10_000, state));
        return ops;
    }

    private static Op write(int client, long t, Outcome outcome, Map<String, BankEntry> entries) {
        Map<String, Op.Item> items = new LinkedHashMap<>();
        entries.forEach((a, e) -> items.put(a, new Op.Item(1, e.format(), 0)));
        return new Op(client, Op.WRITE, "b/bank", 0, null, 0, t, t + 500, outcome, "", "gw", items);
    }

    private static Op read(String f, int client, long t, Map<String, BankEntry> state) {
        Map<String, Op.Item> items = new LinkedHashMap<>();
        state.forEach((a, e) -> items.put(a, new Op.Item(1, e.format(), 0)));
        return new Op(client, f, "b/bank", 0, null, 0, t, t + 100, Outcome.OK, "", "gw", items);
    }

    private static Verdict judge(List<Op> ops) {
        return Checker.check(Workload.BANK, ops, List.of());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void longCorrectBankWithUnknownTransfersIsValid() {
        Verdict v = judge(correctBank(10_000, 7));
        assertThat(v.violations()).isEmpty();
        assertThat(v.undecided()).isEmpty();
    }

    @Test
    void readShowingAnAccountOneTransferBehindIsTornOrStale() {
        List<Op> ops = correctBank(2_000, 11);
        int at = ops.size() / 2;
        while (!ops.get(at).is(Op.READ)) {
            at++;
        }
        Op r = ops.get(at);
        // The account last written: put back the value its last transfer replaced there.
        Op lastWrite = ops.subList(0, at).stream().filter(o -> o.is(Op.WRITE) && o.outcome() == Outcome.OK).reduce((p, q) -> q).orElseThrow();
        String account = lastWrite.items().keySet().iterator().next();
        String previousId = BankEntry.parse(lastWrite.items().get(account).value()).previous();
        String older = ops.subList(0, at).stream().filter(o -> o.is(Op.WRITE) && o.items().containsKey(account))
                .map(o -> o.items().get(account).value()).filter(v -> BankEntry.parse(v).transfer().equals(previousId))
                .findFirst().orElseThrow();
        Map<String, Op.Item> items = new LinkedHashMap<>(r.items());
        items.put(account, new Op.Item(1, older, 0));
        ops.set(at, new Op(r.client(), r.f(), r.key(), 0, null, 0, r.invokeUs(), r.completeUs(), Outcome.OK, "", "gw", items));

        assertThat(judge(ops).violations()).extracting(Violation::kind)
                .contains(Violation.INCONSISTENT_READ, Violation.STALE_READ);
    }

    @Test
    void anAcknowledgedTransferMissingFromTheFinalReadIsLost() {
        List<Op> ops = correctBank(500, 3);
        Op fin = ops.remove(ops.size() - 1);
        Op last = ops.stream().filter(o -> o.is(Op.WRITE) && o.outcome() == Outcome.OK).reduce((p, q) -> q).orElseThrow();
        // The final read as if the last acknowledged transfer had been refused: its accounts hold their values before it.
        Map<String, Op.Item> items = new LinkedHashMap<>(fin.items());
        for (String a : last.items().keySet()) {
            String previousId = BankEntry.parse(last.items().get(a).value()).previous();
            ops.stream().filter(o -> o.is(Op.WRITE) && o.items().containsKey(a)).map(o -> o.items().get(a).value())
                    .filter(v -> BankEntry.parse(v).transfer().equals(previousId)).findFirst()
                    .ifPresent(v -> items.put(a, new Op.Item(1, v, 0)));
        }
        ops.add(new Op(-1, Op.FINAL, fin.key(), 0, null, 0, fin.invokeUs(), fin.completeUs(), Outcome.OK, "", "gw", items));

        assertThat(judge(ops).violations()).extracting(Violation::kind).contains(Violation.LOST_TRANSFER);
    }
}
