package io.fencegate.examples.guardrow;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import io.fencegate.examples.jdbc.JdbcExample;
import io.fencegate.issuer.LeaseGroup;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.MultiLock;
import io.fencegate.schema.FencegateSchema;
import io.fencegate.store.ExecutedAll;
import io.fencegate.store.GuardRule;
import io.fencegate.store.KeysResult;
import io.fencegate.store.Refused;
import io.fencegate.store.jdbc.GuardRowTransactions;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;

/**
 * A payment between two accounts, each guarded by its own lock: a {@link MultiLock} takes
 * {@code accounts/alice} and {@code accounts/bob} together (all or none), and
 * {@link GuardRowTransactions#runAll} runs the debit and the credit in one transaction under both
 * guard rows, each judged by its own lock's token. A payment listed bob-first locks in the same
 * canonical order as one listed alice-first, so the two never deadlock.
 *
 * <p>Two payments: one that applies; one by a group a newer group has overtaken (its leases ended
 * during a pause), refused whole, naming both accounts with their current tokens. Money is
 * conserved.
 *
 * <pre>
 * java io.fencegate.examples.guardrow.PaymentExample jdbc:postgresql://127.0.0.1:5432/test postgres 127.0.0.1:2181
 * </pre>
 */
public final class PaymentExample {
    static final Table<Record> ACCOUNTS = table(name("accounts"));
    static final Field<String> OWNER = field(name("owner"), SQLDataType.VARCHAR(64));
    static final Field<Long> BALANCE = field(name("balance"), SQLDataType.BIGINT);

    private static final List<String> LOCKS = List.of("accounts/bob", "accounts/alice"); // also the guard rows' keys
    private static final Duration TTL = Duration.ofSeconds(10);
    private static final Duration WAIT = Duration.ofSeconds(5);

    public static void main(String[] args) throws Exception {
        JdbcExample.run("PaymentExample", args, (pool, dsl, issuer) -> {
            FencegateSchema.migrate(pool); // fencegate_fence, next to the application's tables
            dsl.createTableIfNotExists(ACCOUNTS)
                    .column(OWNER, SQLDataType.VARCHAR(64).notNull())
                    .column(BALANCE, SQLDataType.BIGINT.notNull())
                    .primaryKey(OWNER)
                    .execute();
            dsl.insertInto(ACCOUNTS).set(OWNER, "alice").set(BALANCE, 100L).onConflictDoNothing().execute();
            dsl.insertInto(ACCOUNTS).set(OWNER, "bob").set(BALANCE, 0L).onConflictDoNothing().execute();
            return run(dsl, issuer);
        });
    }

    private static boolean run(DSLContext dsl, LeaseIssuer issuer) {
        long total = balance(dsl, "alice") + balance(dsl, "bob");
        System.out.println("before: " + balances(dsl));

        // 1. alice pays bob 30 under both locks, each account's guard row judged by its own token.
        MultiLock multi = new MultiLock(issuer);
        LeaseGroup group = multi.acquire(List.of("accounts/bob", "accounts/alice"), TTL, WAIT)
                .toCompletableFuture().join().orElseThrow();   // every lock or none
        KeysResult paid = GuardRowTransactions.of(dsl, GuardRule.STRICT)
                .runAll(group.tokens(), tx -> pay(tx, "alice", "bob", 30));   // ExecutedAll or Refused
        multi.release(group).toCompletableFuture().join();
        System.out.println("alice pays bob 30 with tokens " + group.tokens() + ": " + describe(paid) + "; " + balances(dsl));

        // 2. A group overtaken by a newer one: its payment is refused whole, naming both accounts.
        LeaseGroup stalled = multi.acquire(LOCKS, TTL, WAIT).toCompletableFuture().join().orElseThrow();
        multi.release(stalled).toCompletableFuture().join(); // its leases end (as if they expired during a pause)...
        LeaseGroup newer = multi.acquire(LOCKS, TTL, WAIT).toCompletableFuture().join().orElseThrow();
        KeysResult newerPaid = GuardRowTransactions.of(dsl, GuardRule.STRICT)
                .runAll(newer.tokens(), tx -> pay(tx, "bob", "alice", 10)); // ...and the newer group pays first
        multi.release(newer).toCompletableFuture().join();
        KeysResult late = GuardRowTransactions.of(dsl, GuardRule.STRICT)
                .runAll(stalled.tokens(), tx -> pay(tx, "alice", "bob", 50));
        System.out.println("bob pays alice 10 with tokens " + newer.tokens() + ": " + describe(newerPaid)
                + "; then the overtaken group's payment with tokens " + stalled.tokens() + ": " + describe(late)
                + "; " + balances(dsl));

        boolean conserved = balance(dsl, "alice") + balance(dsl, "bob") == total;
        System.out.println(conserved ? "money conserved: " + total : "MONEY NOT CONSERVED");
        return conserved && paid instanceof ExecutedAll && newerPaid instanceof ExecutedAll
                && late instanceof Refused refused && refused.items().size() == 2
                && balance(dsl, "alice") == 80 && balance(dsl, "bob") == 20;
    }

    /** Debit one account, credit the other: both rows change or, if the work throws, neither. */
    private static int pay(DSLContext tx, String from, String to, long amount) {
        return tx.update(ACCOUNTS).set(BALANCE, BALANCE.minus(amount)).where(OWNER.eq(from)).execute()
                + tx.update(ACCOUNTS).set(BALANCE, BALANCE.plus(amount)).where(OWNER.eq(to)).execute();
    }

    private static String describe(KeysResult result) {
        if (result instanceof ExecutedAll executed) {
            return "applied, " + executed.rows() + " rows";
        }
        return "refused, nothing ran (" + ((Refused) result).items().stream()
                .map(i -> i.key() + " is at token " + i.stale().currentToken())
                .collect(Collectors.joining(", ")) + ")";
    }

    private static long balance(DSLContext dsl, String owner) {
        return dsl.select(BALANCE).from(ACCOUNTS).where(OWNER.eq(owner)).fetchOne(BALANCE);
    }

    private static String balances(DSLContext dsl) {
        return "alice " + balance(dsl, "alice") + ", bob " + balance(dsl, "bob");
    }

    private PaymentExample() {}
}
