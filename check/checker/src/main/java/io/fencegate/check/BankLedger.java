package io.fencegate.check;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The bank's checker. Every account holds a {@link BankEntry}: its balance and the ids of the last
 * transfer that wrote it and of the one before on that account. So the transfers that may have
 * applied (acknowledged or unknown) form, on each account, a tree of versions rooted at "missing":
 * a transfer's parent on an account is the version it read there. A fenced read under the guard is
 * never followed by a lower token's write, so what committed on an account is one path of its tree;
 * the siblings are transfers that were refused or, if unknown, did not apply.
 *
 * <p>A read shows one version per account. It is a state some serial order of the transfers
 * produces if and only if those versions are a consistent cut: every value is exactly what its
 * transfer wrote (the balances then follow by replaying the cut's transfers in causal order, each
 * from the values it read), and the causal past of each shown version reaches no account beyond
 * the version shown there ({@link #past}). Unknown transfers may be in the cut or not, as it
 * needs: a read is reported only if no choice explains it. On top of that: the balances of a read of
 * every account add up to the opening total, none is negative, and a read (a final one included)
 * shows every transfer acknowledged before it was sent.
 */
final class BankLedger {
    private final String bank;
    private final List<Op> ops;
    /** Transfers that may have applied (acknowledged or unknown), the opening one included, by id. */
    private final Map<String, Op> transfers = new HashMap<>();
    private final Map<String, Map<String, BankEntry>> wrote = new HashMap<>();
    /** Transfers refused or never sent: no read may show them. */
    private final Map<String, Op> refused = new HashMap<>();
    private final Set<String> accounts = new TreeSet<>();
    private final Map<String, Map<String, String>> pasts = new HashMap<>();
    private final Map<String, Map<String, Integer>> depths = new HashMap<>();

    BankLedger(String bank, List<Op> ops) {
        this.bank = bank;
        this.ops = ops;
        for (Op op : ops) {
            if (op.items() != null) {
                accounts.addAll(op.items().keySet());
            }
            if (!op.is(Op.WRITE) || op.items() == null) {
                continue;
            }
            Map<String, BankEntry> entries = new HashMap<>();
            op.items().forEach((a, i) -> entries.put(a, BankEntry.parse(i.value())));
            String id = entries.values().stream().filter(e -> e != null).map(BankEntry::transfer).findFirst().orElse(null);
            if (id == null) {
                continue;
            }
            if (op.outcome() == Outcome.FAIL) {
                refused.putIfAbsent(id, op);
            } else if (!transfers.containsKey(id) || op.outcome() == Outcome.OK && transfers.get(id).outcome() != Outcome.OK) {
                transfers.put(id, op); // the opening write may come from each process: one acknowledged stands for all
                wrote.put(id, entries);
            }
        }
    }

    void check(Findings out) {
        List<Op> byInvoke = new ArrayList<>(transfers.values());
        byInvoke.sort(Comparator.comparingLong(Op::invokeUs));
        for (Op t : byInvoke) { // a transfer's parents were written before it read them, so before it was sent
            past(id(t));
        }
        Long total = total();
        List<Op> reads = ops.stream().filter(o -> (o.is(Op.READ) || o.is(Op.FINAL)) && o.outcome() == Outcome.OK && o.items() != null)
                .sorted(Comparator.comparingLong(Op::invokeUs)).toList();
        List<Op> acked = byInvoke.stream().filter(o -> o.outcome() == Outcome.OK).sorted(Comparator.comparingLong(Op::completeUs)).toList();
        Map<String, List<String>> frontier = new HashMap<>(); // per account: acknowledged transfers no later acknowledged one follows
        Set<String> lost = new LinkedHashSet<>();
        int done = 0;
        for (Op r : reads) {
            while (done < acked.size() && acked.get(done).completeUs() < r.invokeUs()) {
                acknowledge(id(acked.get(done++)), frontier);
            }
            Map<String, String> shown = shown(r, total, out);
            if (shown == null) {
                continue;
            }
            cut(r, shown, out);
            for (Map.Entry<String, String> s : shown.entrySet()) {
                for (String t : frontier.getOrDefault(s.getKey(), List.of())) {
                    if (!follows(s.getKey(), s.getValue(), t)) {
                        missing(r, s.getKey(), s.getValue(), t, lost, out);
                        break;
                    }
                }
            }
        }
        Op last = Checker.finalRead(ops);
        if (last == null) {
            Checker.noFinalRead(bank, acked.size(), out);
        }
    }

    private static String id(Op transfer) {
        return transfer.items().values().stream().map(i -> BankEntry.parse(i.value())).filter(e -> e != null)
                .map(BankEntry::transfer).findFirst().orElseThrow();
    }

    /** The opening total: what the opening transfer put in the accounts; null if the history has none. */
    private Long total() {
        Map<String, BankEntry> opening = wrote.get(BankEntry.INIT);
        return opening == null ? null : opening.values().stream().mapToLong(e -> e == null ? 0 : e.balance()).sum();
    }

    /**
     * The version each account of {@code r} shows (a transfer id, or {@link BankEntry#NONE} for missing);
     * null if a value is not one a transfer that may have applied wrote there. Reports such values, a
     * negative balance, and a total that changed.
     */
    private Map<String, String> shown(Op r, Long total, Findings out) {
        Map<String, String> shown = new HashMap<>();
        boolean known = true;
        boolean parsed = true;
        long sum = 0;
        for (Map.Entry<String, Op.Item> e : r.items().entrySet()) {
            String a = e.getKey();
            String value = e.getValue().value();
            if (value == null) {
                shown.put(a, BankEntry.NONE);
                continue;
            }
            BankEntry entry = BankEntry.parse(value);
            String why = null;
            if (entry == null) {
                parsed = false;
                why = "holds '" + value + "', which no bank client writes";
            } else if (!transfers.containsKey(entry.transfer())) {
                Op no = refused.get(entry.transfer());
                why = "shows transfer " + entry.transfer() + (no != null ? ", which was refused (" + no.note() + ", client "
                        + no.client() + ")" : ", which no client wrote");
            } else if (!entry.equals(wrote.get(entry.transfer()).get(a))) {
                BankEntry w = wrote.get(entry.transfer()).get(a);
                why = "shows '" + value + "', but transfer " + entry.transfer() + " wrote " + (w == null ? "nothing" : "'" + w.format() + "'")
                        + " there";
            }
            if (why != null) {
                out.violation(new Violation(Violation.INCONSISTENT_READ, bank, r.completeUs(), what(r) + ": account " + a + " " + why));
                known = false;
            }
            if (entry == null) {
                continue;
            }
            if (entry.balance() < 0) {
                out.violation(new Violation(Violation.NEGATIVE_BALANCE, bank, r.completeUs(),
                        what(r) + ": account " + a + " holds " + entry.balance() + " (written by transfer " + entry.transfer() + ")"));
            }
            sum += entry.balance();
            shown.put(a, entry.transfer());
        }
        boolean opened = shown.values().stream().anyMatch(v -> !v.equals(BankEntry.NONE));
        if (parsed && total != null && opened && r.items().keySet().containsAll(accounts) && sum != total) {
            out.violation(new Violation(Violation.TOTAL_CHANGED, bank, r.completeUs(), what(r) + ": the accounts hold " + sum
                    + ", not the " + total + " they opened with " + r.items().values().stream().map(Op.Item::value).toList()));
        }
        return known ? shown : null;
    }

    /** Reports a read whose versions are no consistent cut: one's causal past reaches past what another account shows. */
    private void cut(Op r, Map<String, String> shown, Findings out) {
        Map<String, String> past = new HashMap<>();
        for (String v : shown.values()) {
            for (Map.Entry<String, String> p : past(v).entrySet()) {
                String conflict = merge(past, p.getKey(), p.getValue());
                if (conflict != null) {
                    out.violation(new Violation(Violation.INCONSISTENT_READ, bank, r.completeUs(), what(r) + ": its values follow both"
                            + " transfer " + conflict + " and transfer " + p.getValue() + " on account " + p.getKey()
                            + ", and neither follows the other"));
                    return;
                }
            }
        }
        for (Map.Entry<String, String> s : shown.entrySet()) {
            String needed = past.get(s.getKey());
            if (needed != null && !follows(s.getKey(), s.getValue(), needed)) {
                out.violation(new Violation(Violation.INCONSISTENT_READ, bank, r.completeUs(), what(r) + ": account " + s.getKey()
                        + " shows " + s.getValue() + ", but another account shows a transfer that follows transfer " + needed
                        + ", which wrote " + s.getKey() + " after it or beside it: no serial order of the transfers gives this read"));
                return;
            }
        }
    }

    private void missing(Op r, String account, String shown, String transfer, Set<String> lost, Findings out) {
        Op t = transfers.get(transfer);
        String which = "transfer " + transfer + " (" + t.value() + ", client " + t.client() + "), acknowledged before the read was sent,";
        if (r.is(Op.FINAL)) {
            if (lost.add(transfer)) {
                out.violation(new Violation(Violation.LOST_TRANSFER, bank, r.completeUs(), "final read: " + which
                        + " is not in account " + account + ", which shows " + shown));
            }
        } else {
            out.violation(new Violation(Violation.STALE_READ, bank, r.completeUs(), what(r) + ": account " + account + " shows "
                    + shown + ", older than or beside " + which));
        }
    }

    private static String what(Op r) {
        return (r.is(Op.FINAL) ? "final read" : "read") + " (client " + r.client() + ")";
    }

    /** Adds an acknowledged transfer to the frontier of each of its accounts. */
    private void acknowledge(String t, Map<String, List<String>> frontier) {
        for (String a : wrote.get(t).keySet()) {
            List<String> f = frontier.computeIfAbsent(a, k -> new ArrayList<>());
            if (f.stream().anyMatch(x -> follows(a, x, t))) {
                continue;
            }
            f.removeIf(x -> follows(a, t, x));
            f.add(t);
        }
    }

    /**
     * The causal past of version {@code v}: per account, the latest version it follows (itself on
     * its own accounts). Computed once per transfer, from its parents' (a parent not yet computed,
     * or unknown, adds only itself).
     */
    private Map<String, String> past(String v) {
        Map<String, String> known = pasts.get(v);
        if (known != null || !wrote.containsKey(v)) {
            return known != null ? known : Map.of();
        }
        Map<String, String> past = new HashMap<>();
        pasts.put(v, past); // before the parents: a cycle (a crafted history) ends here
        for (Map.Entry<String, BankEntry> w : wrote.get(v).entrySet()) {
            String parent = w.getValue() == null ? BankEntry.NONE : w.getValue().previous();
            if (!parent.equals(BankEntry.NONE)) {
                Map<String, String> before = pasts.getOrDefault(parent, Map.of(w.getKey(), parent));
                before.forEach((c, x) -> merge(past, c, x)); // a conflict here: this transfer's own read was torn
            }
        }
        wrote.get(v).keySet().forEach(a -> past.put(a, v));
        return past;
    }

    /** Puts the later of {@code x} and what {@code past} has on {@code account}; the one beside it, if neither follows the other. */
    private String merge(Map<String, String> past, String account, String x) {
        String had = past.get(account);
        if (had == null || follows(account, x, had)) {
            past.put(account, x);
            return null;
        }
        return follows(account, had, x) ? null : had;
    }

    /** Whether version {@code later} on {@code account} is {@code earlier} or descends from it in the account's tree. */
    boolean follows(String account, String later, String earlier) {
        int target = depth(account, earlier);
        String v = later;
        while (!v.equals(earlier) && depth(account, v) > target) {
            String p = parent(account, v);
            if (depth(account, p) >= depth(account, v)) {
                return false; // a cycle of a crafted history: no way down
            }
            v = p;
        }
        return v.equals(earlier);
    }

    /** The version {@code v} replaced on {@code account}; {@link BankEntry#NONE} for the root and for what is not known there. */
    private String parent(String account, String v) {
        Map<String, BankEntry> w = wrote.get(v);
        BankEntry e = w == null ? null : w.get(account);
        return e == null ? BankEntry.NONE : e.previous();
    }

    /** Steps from the root; 0 for the root and for a version not known on the account. Iterative: chains are long. */
    private int depth(String account, String v) {
        Map<String, Integer> memo = depths.computeIfAbsent(account, k -> new HashMap<>());
        List<String> chain = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        String x = v;
        int base = 0;
        while (true) {
            Integer d = memo.get(x);
            if (d != null) {
                base = d;
                break;
            }
            Map<String, BankEntry> w = wrote.get(x);
            if (x.equals(BankEntry.NONE) || w == null || w.get(account) == null || !seen.add(x)) {
                base = 0; // the root, a version unknown here, or a cycle
                memo.put(x, 0);
                break;
            }
            chain.add(x);
            x = w.get(account).previous();
        }
        for (int i = chain.size() - 1; i >= 0; i--) {
            memo.put(chain.get(i), ++base);
        }
        return memo.get(v);
    }
}
