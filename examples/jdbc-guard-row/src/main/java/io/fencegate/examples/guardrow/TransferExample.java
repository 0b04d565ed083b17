package io.fencegate.examples.guardrow;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import io.fencegate.examples.jdbc.JdbcExample;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.schema.FencegateSchema;
import io.fencegate.store.Executed;
import io.fencegate.store.GuardRule;
import io.fencegate.store.Stale;
import io.fencegate.store.StatementResult;
import io.fencegate.store.jdbc.GuardRowTransactions;
import java.time.Duration;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;

/**
 * A transfer between two accounts kept in two tables ({@code checking_accounts},
 * {@code savings_accounts}), all or nothing under one fencing token: {@link GuardRowTransactions}
 * locks the guard row of {@code accounts/alice} in fencegate's {@code fencegate_fence} table,
 * checks the token, runs both updates and advances the guard, in one transaction. Your tables need
 * no token columns. No gateway.
 *
 * <p>Three transfers: one that applies; one that fails half-way (the debit ran, the balance check
 * threw) and leaves nothing behind; one by a holder whose lease a newer holder has overtaken,
 * refused before any statement runs. Money is conserved throughout.
 *
 * <pre>
 * java io.fencegate.examples.guardrow.TransferExample jdbc:postgresql://127.0.0.1:5432/test postgres 127.0.0.1:2181
 * </pre>
 */
public final class TransferExample {
    static final Table<Record> CHECKING = table(name("checking_accounts"));
    static final Table<Record> SAVINGS = table(name("savings_accounts"));
    static final Field<String> OWNER = field(name("owner"), SQLDataType.VARCHAR(64));
    static final Field<Long> BALANCE = field(name("balance"), SQLDataType.BIGINT);

    private static final String LOCK = "accounts/alice"; // also the guard row's key
    private static final Duration TTL = Duration.ofSeconds(10);

    /** Thrown inside the transaction to roll it back; never escapes as a half-done transfer. */
    static final class InsufficientFunds extends RuntimeException {
        InsufficientFunds(long balance) {
            super("checking would go to " + balance);
        }
    }

    public static void main(String[] args) throws Exception {
        JdbcExample.run("TransferExample", args, (pool, dsl, issuer) -> {
            FencegateSchema.migrate(pool); // fencegate_fence, next to the application's tables
            createAccounts(dsl);
            return run(dsl, issuer);
        });
    }

    private static void createAccounts(DSLContext dsl) {
        for (Table<Record> t : java.util.List.of(CHECKING, SAVINGS)) {
            dsl.createTableIfNotExists(t)
                    .column(OWNER, SQLDataType.VARCHAR(64).notNull())
                    .column(BALANCE, SQLDataType.BIGINT.notNull())
                    .primaryKey(OWNER)
                    .execute();
        }
        dsl.insertInto(CHECKING).set(OWNER, "alice").set(BALANCE, 100L).onConflictDoNothing().execute();
        dsl.insertInto(SAVINGS).set(OWNER, "alice").set(BALANCE, 0L).onConflictDoNothing().execute();
    }

    private static boolean run(DSLContext dsl, LeaseIssuer issuer) {
        GuardRowTransactions guarded = GuardRowTransactions.of(dsl, GuardRule.STRICT);
        long total = checking(dsl) + savings(dsl);
        System.out.println("before: " + balances(dsl));

        // 1. A transfer that applies: both rows change, under one token.
        Lease first = acquire(issuer);
        StatementResult moved = guarded.run(LOCK, first.token(), tx -> transfer(tx, 30));
        release(issuer, first);
        System.out.println("transfer 30 with token " + first.token() + ": " + describe(moved) + "; " + balances(dsl));

        // 2. A transfer that fails half-way: the debit ran, then the check threw. All rolled back.
        Lease second = acquire(issuer);
        String failed;
        try {
            failed = describe(guarded.run(LOCK, second.token(), tx -> transfer(tx, 500)));
        } catch (InsufficientFunds e) {
            failed = "rolled back (" + e.getMessage() + ")";
        }
        release(issuer, second);
        System.out.println("transfer 500 with token " + second.token() + ": " + failed + "; " + balances(dsl));

        // 3. A holder overtaken by a newer one: its transfer runs no statement at all.
        Lease stalled = acquire(issuer);
        release(issuer, stalled); // its lease ends (as if it expired during a pause)...
        Lease newer = acquire(issuer); // ...and a newer holder transfers first
        StatementResult newerMoved = guarded.run(LOCK, newer.token(), tx -> transfer(tx, 10));
        release(issuer, newer);
        StatementResult late = guarded.run(LOCK, stalled.token(), tx -> transfer(tx, 10));
        System.out.println("transfer 10 with token " + newer.token() + ": " + describe(newerMoved)
                + "; then the overtaken holder's transfer with token " + stalled.token() + ": " + describe(late)
                + "; " + balances(dsl));

        boolean conserved = checking(dsl) + savings(dsl) == total;
        System.out.println(conserved ? "money conserved: " + total : "MONEY NOT CONSERVED");
        return conserved && moved instanceof Executed && newerMoved instanceof Executed && late instanceof Stale
                && checking(dsl) == 60 && savings(dsl) == 40;
    }

    /** Debit checking, credit savings; refuse a negative balance by throwing, which rolls both back. */
    private static int transfer(DSLContext tx, long amount) {
        int rows = tx.update(CHECKING).set(BALANCE, BALANCE.minus(amount)).where(OWNER.eq("alice")).execute();
        long left = tx.select(BALANCE).from(CHECKING).where(OWNER.eq("alice")).fetchOne(BALANCE);
        if (left < 0) {
            throw new InsufficientFunds(left);
        }
        return rows + tx.update(SAVINGS).set(BALANCE, BALANCE.plus(amount)).where(OWNER.eq("alice")).execute();
    }

    private static String describe(StatementResult result) {
        return result instanceof Executed e ? "applied, " + e.rows() + " rows"
                : "refused as stale, nothing ran (the guard row's token is " + ((Stale) result).currentToken() + ")";
    }

    private static Lease acquire(LeaseIssuer issuer) {
        return issuer.acquire(LOCK, TTL, Duration.ofSeconds(5)).toCompletableFuture().join().orElseThrow();
    }

    private static void release(LeaseIssuer issuer, Lease lease) {
        issuer.release(lease.leaseId()).toCompletableFuture().join();
    }

    private static long checking(DSLContext dsl) {
        return dsl.select(BALANCE).from(CHECKING).where(OWNER.eq("alice")).fetchOne(BALANCE);
    }

    private static long savings(DSLContext dsl) {
        return dsl.select(BALANCE).from(SAVINGS).where(OWNER.eq("alice")).fetchOne(BALANCE);
    }

    private static String balances(DSLContext dsl) {
        return "checking " + checking(dsl) + ", savings " + savings(dsl);
    }

    private TransferExample() {}
}
