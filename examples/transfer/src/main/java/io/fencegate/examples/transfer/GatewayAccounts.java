package io.fencegate.examples.transfer;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.Transaction;
import io.fencegate.client.TransactionOutcome;
import java.time.Duration;
import java.util.List;

/**
 * Mode 2's bank: one item per account in the gateway's store {@link #STORE} (a Postgres database),
 * each guarded by its own lock {@code bank/<account>}, the balance as decimal text.
 */
final class GatewayAccounts implements Balances {
    static final String STORE = "bank";

    private final FencegateClient client;
    private final List<String> accounts;

    GatewayAccounts(FencegateClient client, List<String> accounts) {
        this.client = client;
        this.accounts = List.copyOf(accounts);
    }

    static String lockOf(String account) {
        return STORE + "/" + account;
    }

    /** Opens every account under one lease group, in one transaction. */
    void create(long each) {
        List<String> locks = accounts.stream().map(GatewayAccounts::lockOf).toList();
        TransactionOutcome opened = client.withLeases(locks, Duration.ofSeconds(10), Duration.ofSeconds(10), group -> {
            Transaction tx = client.transaction(STORE);
            for (String account : accounts) {
                tx.put(account, group.token(lockOf(account)), Long.toString(each).getBytes(UTF_8));
            }
            return tx.commit();
        }).orElseThrow(() -> new IllegalStateException("the accounts' locks stayed held for 10 s"));
        if (!opened.committed()) {
            throw new IllegalStateException("could not open the accounts: " + opened);
        }
    }

    /** A plain read: claims nothing, never refused. */
    @Override
    public long of(String account) {
        ReadOutcome read = client.get(STORE, account);
        if (read instanceof ReadOutcome.Value value) {
            return Long.parseLong(new String(value.bytes(), UTF_8));
        }
        throw new IllegalStateException("account " + account + " is missing: " + read);
    }

    @Override
    public long total() {
        return accounts.stream().mapToLong(this::of).sum();
    }
}
