package io.fencegate.check;

import io.fencegate.client.ClaimOutcome;
import io.fencegate.client.FencegateClient;
import io.fencegate.client.LeaseGroup;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.Refused;
import io.fencegate.client.TransactionOutcome;
import io.fencegate.client.WriteOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * Jepsen's bank: money moves between a few accounts of one store, and the total never changes.
 * A transfer takes a lease group on both accounts' locks, reads both with a fenced multi-read,
 * thinks (or pauses past its ttl), and writes both new balances in one transaction with their
 * tokens; a read takes all the accounts' locks and reads them all at once. Every account holds a
 * {@link BankEntry}; {@link BankLedger} judges the history.
 */
final class BankWorkload implements Workload {
    /** Each account opens with this much; the total is this times the number of accounts. */
    static final long OPENING_BALANCE = 100;
    /** How often a step reads every account instead (a lease group on all of them holds every transfer up). */
    static final double READ_CHANCE = 0.15;
    /** A transfer moves 1 to this much (never more than the account it leaves holds). */
    static final int MAX_AMOUNT = 20;

    @Override
    public String label() {
        return "bank";
    }

    @Override
    public String counted() {
        return Op.WRITE;
    }

    @Override
    public String countedInWords() {
        return "ops are transfers (one transaction writing two accounts) and the opening write; fail counts transfers refused by"
                + " the store (409 stale: mostly clients that paused past their ttl on purpose, as the workload does) or never sent";
    }

    @Override
    public boolean writesItems() {
        return true;
    }

    /** The bank's name: the key every one of its operations is recorded on. */
    static String bankKey(RunOptions options) {
        return options.keyPrefix() + "/bank";
    }

    /** The accounts' item keys ({@code --accounts} of them). */
    static List<String> accounts(RunOptions options) {
        return IntStream.range(0, options.keys()).mapToObj(i -> options.keyPrefix() + "/bank-" + i).toList();
    }

    @Override
    public void check(String key, List<Op> ops, List<Fault> faults, Findings out) {
        new BankLedger(key, ops).check(out);
    }

    @Override
    public void step(ClientLoop client, Gateways.Gateway gw) throws InterruptedException {
        List<String> all = accounts(client.options());
        if (client.nextDouble() < READ_CHANCE) {
            GroupCalls calls = new GroupCalls(client, gw, bankKey(client.options()));
            LeaseGroup group = calls.acquire(all);
            if (group != null) {
                calls.read(group, all);
                calls.release(group);
            }
            return;
        }
        int i = client.nextInt(all.size());
        int j = client.nextInt(all.size() - 1);
        transfer(client, gw, all.get(i), all.get(j >= i ? j + 1 : j));
    }

    private static void transfer(ClientLoop client, Gateways.Gateway gw, String from, String to) throws InterruptedException {
        GroupCalls calls = new GroupCalls(client, gw, bankKey(client.options()));
        LeaseGroup group = calls.acquire(List.of(from, to));
        if (group == null) {
            return;
        }
        Map<String, BankEntry> read = calls.read(group, List.of(from, to));
        if (read != null && read.values().stream().allMatch(e -> e != null)) { // not opened yet: nothing to move
            client.pauseOrThink();
            if (read.get(from).balance() <= 0) { // move money the other way, or none
                String t = from;
                from = to;
                to = t;
            }
            BankEntry a = read.get(from);
            BankEntry b = read.get(to);
            long amount = a.balance() <= 0 ? 0 : 1 + client.nextInt((int) Math.min(a.balance(), MAX_AMOUNT));
            String id = client.id() + "-" + client.nextSequence();
            Map<String, BankEntry> next = new LinkedHashMap<>();
            next.put(from, new BankEntry(a.balance() - amount, id, a.transfer()));
            next.put(to, new BankEntry(b.balance() + amount, id, b.transfer()));
            calls.write(group, next, id + ": " + amount + " from " + from + " to " + to);
        }
        calls.release(group);
    }

    /**
     * Before the clients start: opens the accounts, once, whichever process gets there first. A
     * process that finds them open leaves them; a transfer that finds one missing moves nothing.
     */
    @Override
    public void setUp(ClientLoop client, Gateways gateways) throws InterruptedException {
        List<String> all = accounts(client.options());
        for (int attempt = 0; attempt < 30 && Clock.nowUs() < client.deadlineUs(); attempt++) {
            GroupCalls calls = new GroupCalls(client, gateways.get(attempt % gateways.size()), bankKey(client.options()));
            LeaseGroup group = calls.acquire(all);
            if (group == null) {
                Thread.sleep(300);
                continue;
            }
            Map<String, BankEntry> read = calls.read(group, all);
            boolean open = read != null && read.values().stream().anyMatch(e -> e != null); // partly open: the ledger says so
            Outcome opened = Outcome.FAIL;
            if (read != null && !open) {
                Map<String, BankEntry> opening = new LinkedHashMap<>();
                all.forEach(a -> opening.put(a, new BankEntry(OPENING_BALANCE, BankEntry.INIT, BankEntry.NONE)));
                opened = calls.write(group, opening, BankEntry.INIT + ": " + OPENING_BALANCE + " in each account");
            }
            calls.release(group);
            if (open || opened == Outcome.OK) {
                return;
            }
            Thread.sleep(300);
        }
        System.err.println("fencegate check: the bank's accounts could not be opened; its transfers will move nothing");
    }

    /** The final read: a lease group on every account the history wrote, one fenced multi-read of them all. */
    @Override
    public void finalReads(History history, Gateways gateways, String store) {
        Map<String, List<String>> banks = new LinkedHashMap<>();
        for (Op op : history.ops()) {
            if (op.is(Op.WRITE) && op.items() != null) {
                List<String> accounts = banks.computeIfAbsent(op.key(), k -> new ArrayList<>());
                op.items().keySet().stream().filter(a -> !accounts.contains(a)).forEach(accounts::add);
            }
        }
        banks.forEach((bank, accounts) -> {
            for (int attempt = 0; attempt < 30; attempt++) { // the deployment may still be recovering from a fault
                if (finalRead(history, gateways.get(attempt % gateways.size()), store, bank, accounts.stream().sorted().toList())) {
                    return;
                }
                Runner.sleep(1000);
            }
        });
    }

    private static boolean finalRead(History history, Gateways.Gateway gw, String store, String bank, List<String> accounts) {
        FencegateClient c = gw.client();
        long t0 = Clock.nowUs();
        Map<String, Op.Item> items = new LinkedHashMap<>();
        try {
            Optional<LeaseGroup> group = c.acquireAll(accounts.stream().map(a -> store + "/" + a).toList(), Duration.ofSeconds(5),
                    Duration.ofSeconds(5));
            if (group.isEmpty()) {
                return false;
            }
            Map<String, Long> tokens = new LinkedHashMap<>();
            accounts.forEach(a -> tokens.put(a, group.get().token(store + "/" + a)));
            try {
                t0 = Clock.nowUs();
                ClaimOutcome read = c.getAll(store, tokens);
                if (read instanceof ClaimOutcome.Claimed claimed) {
                    claimed.items().forEach((a, r) -> items.put(a, item(tokens.get(a), r)));
                    history.add(new Op(-1, Op.FINAL, bank, 0, null, 0, t0, Clock.nowUs(), Outcome.OK, "", gw.url(), items));
                    return true;
                }
                history.add(new Op(-1, Op.FINAL, bank, 0, null, 0, t0, Clock.nowUs(), Outcome.FAIL,
                        "409 stale: " + ((Refused) read).items().keySet(), gw.url(), null));
                return false;
            } finally {
                c.release(group.get().groupId());
            }
        } catch (RuntimeException e) {
            history.add(new Op(-1, Op.FINAL, bank, 0, null, 0, t0, Clock.nowUs(), ClientLoop.failure(e), ClientLoop.describe(e),
                    gw.url(), null));
            return false;
        }
    }

    /** An account as a read answered it: the token it carried, the value (null: missing), the token of the write it read. */
    static Op.Item item(long token, ReadOutcome read) {
        return read instanceof ReadOutcome.Value v
                ? new Op.Item(token, new String(v.bytes(), StandardCharsets.UTF_8), v.token())
                : new Op.Item(token, null, 0);
    }

    /** The answer of a transaction, per account: its token, what it wrote, the token it replaced. */
    static Map<String, Op.Item> written(Map<String, Op.Item> sent, TransactionOutcome outcome) {
        if (!(outcome instanceof TransactionOutcome.Committed committed)) {
            return sent;
        }
        Map<String, Op.Item> items = new LinkedHashMap<>();
        sent.forEach((a, i) -> {
            WriteOutcome.Applied applied = committed.items().get(a);
            items.put(a, new Op.Item(i.token(), i.value(), applied == null ? 0 : applied.previousToken()));
        });
        return items;
    }
}
