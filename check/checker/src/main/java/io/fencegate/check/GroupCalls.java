package io.fencegate.check;

import io.fencegate.client.ClaimOutcome;
import io.fencegate.client.FencegateClient;
import io.fencegate.client.LeaseGroup;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.Refused;
import io.fencegate.client.Transaction;
import io.fencegate.client.TransactionOutcome;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One client's calls on several items at once, through one gateway, each recorded on the name of
 * what the items make up ({@code key}, the bank) with every item's token, value and prior: a lease
 * group on the items' locks ({@code {store}/{item}}), a fenced multi-read, a transaction, the
 * group's release. The controls break the read (plain reads, no fence) or the write (straight into
 * the table, no guard).
 */
final class GroupCalls {
    private final ClientLoop client;
    private final Gateways.Gateway gw;
    private final FencegateClient c;
    private final String key;
    private final String store;

    GroupCalls(ClientLoop client, Gateways.Gateway gw, String key) {
        this.client = client;
        this.gw = gw;
        this.c = gw.client();
        this.key = key;
        this.store = client.options().store();
    }

    private String lock(String item) {
        return store + "/" + item;
    }

    /** A lease on every item's lock, all or none; null if not granted. */
    LeaseGroup acquire(List<String> items) {
        long ttlMs = client.options().ttlMs();
        Map<String, Op.Item> tokens = new LinkedHashMap<>();
        items.forEach(i -> tokens.put(i, new Op.Item(0, null, 0)));
        long t0 = Clock.nowUs();
        try {
            Optional<LeaseGroup> group = c.acquireAll(items.stream().map(this::lock).toList(), Duration.ofMillis(ttlMs),
                    Duration.ofMillis(2 * ttlMs));
            client.answered(gw);
            group.ifPresent(g -> items.forEach(i -> tokens.put(i, new Op.Item(g.token(lock(i)), null, 0))));
            client.record(gw, Op.ACQUIRE, key, Long.toString(ttlMs), tokens, t0, group.isPresent() ? Outcome.OK : Outcome.FAIL,
                    group.isPresent() ? group.get().groupId() : "423 held");
            return group.orElse(null);
        } catch (RuntimeException e) {
            client.failed(gw, c, Op.ACQUIRE, key, Long.toString(ttlMs), tokens, t0, e);
            return null;
        }
    }

    /**
     * A fenced multi-read of {@code items} with the group's tokens (plain reads, one by one, for the
     * plain-reads control). Each item's entry (null: missing); null if the read was refused or failed
     * or an item holds what no bank client writes.
     */
    Map<String, BankEntry> read(LeaseGroup group, List<String> items) {
        boolean plain = client.options().control() == Control.PLAIN_READS;
        Map<String, Long> tokens = new LinkedHashMap<>();
        Map<String, Op.Item> sent = new LinkedHashMap<>();
        for (String i : items) {
            long token = plain ? 0 : group.token(lock(i)); // a plain read carries no token and raises no fence
            tokens.put(i, token);
            sent.put(i, new Op.Item(token, null, 0));
        }
        long t0 = Clock.nowUs();
        Map<String, Op.Item> answered = new LinkedHashMap<>();
        try {
            if (plain) {
                for (String i : items) {
                    answered.put(i, BankWorkload.item(0, c.get(store, i)));
                }
            } else {
                ClaimOutcome claim = c.getAll(store, tokens);
                if (claim instanceof Refused refused) {
                    client.answered(gw);
                    client.record(gw, Op.READ, key, null, sent, t0, Outcome.FAIL, "409 stale: " + refused.items().keySet());
                    return null;
                }
                ((ClaimOutcome.Claimed) claim).items().forEach((i, r) -> answered.put(i, BankWorkload.item(tokens.get(i), r)));
            }
            client.answered(gw);
        } catch (RuntimeException e) {
            client.failed(gw, c, Op.READ, key, null, sent, t0, e);
            return null;
        }
        client.record(gw, Op.READ, key, null, answered, t0, Outcome.OK, "");
        Map<String, BankEntry> entries = new LinkedHashMap<>();
        for (Map.Entry<String, Op.Item> e : answered.entrySet()) {
            BankEntry entry = BankEntry.parse(e.getValue().value());
            if (entry == null && e.getValue().value() != null) {
                return null;
            }
            entries.put(e.getKey(), entry);
        }
        return entries;
    }

    /**
     * Writes every item's new entry with the group's tokens in one transaction (for the
     * bypass-guard control: in one database transaction past the guard). Its outcome.
     */
    Outcome write(LeaseGroup group, Map<String, BankEntry> entries, String what) {
        Map<String, Op.Item> sent = new LinkedHashMap<>();
        entries.forEach((i, e) -> sent.put(i, new Op.Item(group.token(lock(i)), e.format(), 0)));
        long t0 = Clock.nowUs();
        // The set-up client has no bypass: the opening balances go through the guard in every run.
        if (client.options().control() == Control.BYPASS_GUARD && client.bypass() != null) {
            Map<String, byte[]> values = new LinkedHashMap<>();
            Map<String, Long> tokens = new LinkedHashMap<>();
            sent.forEach((i, s) -> {
                values.put(i, s.value().getBytes(StandardCharsets.UTF_8));
                tokens.put(i, s.token());
            });
            try {
                Map<String, Long> replaced = client.bypass().writeAll(tokens, values);
                Map<String, Op.Item> items = new LinkedHashMap<>();
                sent.forEach((i, s) -> items.put(i, new Op.Item(s.token(), s.value(), replaced.getOrDefault(i, 0L))));
                client.record(gw, Op.WRITE, key, what, items, t0, Outcome.OK, "bypassed the guard");
                return Outcome.OK;
            } catch (SQLException e) { // the database's failure, not the gateway's: no backoff from it
                client.record(gw, Op.WRITE, key, what, sent, t0, ClientLoop.failure(e), ClientLoop.describe(e));
                return ClientLoop.failure(e);
            }
        }
        Transaction tx = c.transaction(store);
        sent.forEach((i, s) -> tx.put(i, s.token(), s.value().getBytes(StandardCharsets.UTF_8)));
        try {
            TransactionOutcome outcome = tx.commit();
            client.answered(gw);
            if (outcome instanceof Refused refused) {
                client.record(gw, Op.WRITE, key, what, sent, t0, Outcome.FAIL, "409 stale: " + refused.items());
                return Outcome.FAIL;
            }
            client.record(gw, Op.WRITE, key, what, BankWorkload.written(sent, outcome), t0, Outcome.OK, "");
            return Outcome.OK;
        } catch (RuntimeException e) {
            client.failed(gw, c, Op.WRITE, key, what, sent, t0, e);
            return ClientLoop.failure(e);
        }
    }

    void release(LeaseGroup group) {
        Map<String, Op.Item> tokens = new LinkedHashMap<>();
        group.leases().forEach(l -> tokens.put(l.lock().substring(store.length() + 1), new Op.Item(l.token(), null, 0)));
        long t0 = Clock.nowUs();
        try {
            boolean released = c.release(group.groupId());
            client.answered(gw);
            client.record(gw, Op.RELEASE, key, null, tokens, t0, released ? Outcome.OK : Outcome.FAIL, released ? "" : "410 gone");
        } catch (RuntimeException e) {
            client.failed(gw, c, Op.RELEASE, key, null, tokens, t0, e);
        }
    }
}
