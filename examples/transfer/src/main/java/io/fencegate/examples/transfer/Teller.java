package io.fencegate.examples.transfer;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.fencegate.client.ClaimOutcome;
import io.fencegate.client.FencegateClient;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.Refused;
import io.fencegate.client.Stale;
import io.fencegate.client.TransactionOutcome;
import io.fencegate.examples.support.RedisLock;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One teller process: it moves random amounts between random pairs of accounts, each transfer
 * under a lock on both accounts: read both balances, then write both. Commands come on stdin
 * ({@code GATEWAY <uri>}, {@code RUN <mode> <hold>}, {@code STOP}, {@code GO}, {@code QUIT}); what it does goes to stdout
 * as {@code EV <teller> <event> ...} lines, which the example counts. It never judges the outcome:
 * a transfer it believes committed is counted even when the balances say otherwise.
 *
 * <p>A teller told to hold stops at its first transfer between the read and the write, says
 * {@code HOLD}, and waits for {@code GO}; the example freezes it there with SIGSTOP. A GC pause or
 * a VM freeze lands wherever it lands; the example puts it in the window, every run.
 */
public final class Teller {
    static final Duration TTL = Duration.ofMillis(1500);
    private static final Duration LOCK_WAIT = Duration.ofSeconds(10);
    private static final long THINK_MS = 20;

    private final int id;
    private final List<String> accounts;
    private final SqlAccounts sql;
    private final RedisLock redisLock;
    /** Set by the {@code GATEWAY <uri>} command: the tellers start while the gateway does. */
    private volatile FencegateClient gateway;
    private final BlockingQueue<String[]> runs = new LinkedBlockingQueue<>();
    /** One permit per GO: each held transfer waits for its own (a latch would stay open for the next mode's). */
    private final Semaphore go = new Semaphore(0);
    private volatile boolean stop;

    private Teller(int id, List<String> accounts, String jdbcUrl, String user, String password, String redisLockUri)
            throws Exception {
        this.id = id;
        this.accounts = accounts;
        this.sql = new SqlAccounts(jdbcUrl, user, password);
        this.redisLock = new RedisLock(redisLockUri);
    }

    /** {@code <id> <accounts, comma-separated> <jdbcUrl> <user> <password or -> <redis uri#prefix>}. */
    public static void main(String[] args) throws Exception {
        Teller teller = new Teller(Integer.parseInt(args[0]), List.of(args[1].split(",")), args[2], args[3],
                args[4].equals("-") ? "" : args[4], args[5]);
        Thread commands = new Thread(teller::readCommands, "teller-commands");
        commands.setDaemon(true);
        commands.start();
        teller.emit("READY");
        for (String[] run; (run = teller.runs.take()).length > 0; ) {
            teller.stop = false;
            teller.run(Mode.valueOf(run[1]), Boolean.parseBoolean(run[2]));
        }
        teller.sql.close();
        teller.redisLock.close();
        System.exit(0);
    }

    private void readCommands() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, UTF_8))) {
            for (String line; (line = in.readLine()) != null && !line.equals("QUIT"); ) {
                switch (line.split(" ")[0]) {
                    case "GATEWAY" -> gateway = FencegateClient.builder(line.split(" ")[1])
                            .timeout(Duration.ofSeconds(10)).build();
                    case "RUN" -> runs.add(line.split(" "));
                    case "STOP" -> stop = true;
                    case "GO" -> go.release();
                    default -> emit("ERROR unknown command " + line);
                }
            }
        } catch (Exception e) {
            emit("ERROR " + e);
        }
        stop = true;
        runs.add(new String[0]);
    }

    /** Transfers until told to STOP, or, holding, until the held transfer is done. */
    private void run(Mode mode, boolean hold) throws InterruptedException {
        int committed = 0;
        int refused = 0;
        while (!stop) {
            Transfer t = Transfer.random(accounts);
            try {
                String outcome = mode == Mode.PLAIN_LOCK ? plainLock(t, hold) : fencegate(t, hold);
                committed += outcome.equals("committed") ? 1 : 0;
                refused += outcome.startsWith("refused") ? 1 : 0;
                if (hold && !outcome.equals("busy")) {
                    emit("WROTE " + outcome);
                    break;
                }
            } catch (Exception e) {
                emit("ERROR " + e.toString().replace('\n', ' '));
            }
            Thread.sleep(THINK_MS);
        }
        emit("IDLE " + committed + " " + refused);
    }

    /**
     * Mode 1: both locks in one canonical order (so two tellers never deadlock), a plain read, a
     * plain write. The lock has a ttl so that a crashed teller does not block the accounts for ever;
     * that same ttl lets the next teller in while this one is frozen, and nothing stops the write.
     */
    private String plainLock(Transfer t, boolean hold) throws Exception {
        List<String> locks = t.locksInOrder();
        List<String> values = new ArrayList<>();
        try {
            for (String lock : locks) {
                String value = redisLock.acquire(lock, TTL, LOCK_WAIT);
                if (value == null) {
                    return "busy";
                }
                values.add(value);
            }
            long[] balance = sql.read(t.from(), t.to());
            long amount = t.amountWithin(balance[0]);
            if (amount == 0) {
                return "busy";
            }
            holdIfTold(hold, t, balance);
            sql.write(t.from(), balance[0] - amount, t.to(), balance[1] + amount);
            return "committed";
        } finally {
            for (int i = 0; i < values.size(); i++) {
                redisLock.release(locks.get(i), values.get(i)); // compare-and-delete: a no-op once the ttl passed
            }
        }
    }

    /**
     * Mode 2: a lease group on both accounts (MultiLock: both or none), a fenced multi-read with each
     * account's own token, and both new balances in one guarded transaction. A newer holder's fenced
     * read raises the fences, so this transaction, however late it comes, is refused as a whole.
     */
    private String fencegate(Transfer t, boolean hold) throws Exception {
        String lockFrom = GatewayAccounts.lockOf(t.from());
        String lockTo = GatewayAccounts.lockOf(t.to());
        Optional<String> done = gateway.withLeases(List.of(lockFrom, lockTo), TTL, LOCK_WAIT, group -> {
            long tokenFrom = group.token(lockFrom);
            long tokenTo = group.token(lockTo);
            Map<String, Long> tokens = new LinkedHashMap<>();
            tokens.put(t.from(), tokenFrom);
            tokens.put(t.to(), tokenTo);
            ClaimOutcome claim = gateway.getAll(GatewayAccounts.STORE, tokens);
            if (!(claim instanceof ClaimOutcome.Claimed claimed)) {
                return "busy"; // a newer holder already claimed one of them: this lease is over
            }
            long[] balance = {amount(claimed.items().get(t.from())), amount(claimed.items().get(t.to()))};
            long amount = t.amountWithin(balance[0]);
            if (amount == 0) {
                return "busy";
            }
            holdIfTold(hold, t, balance);
            // No group.held() check here: the pause can come right after any check, as it did here.
            TransactionOutcome out = gateway.transaction(GatewayAccounts.STORE)
                    .put(t.from(), tokenFrom, Long.toString(balance[0] - amount).getBytes(UTF_8))
                    .put(t.to(), tokenTo, Long.toString(balance[1] + amount).getBytes(UTF_8))
                    .commit();
            if (out instanceof Refused refused) {
                return "refused " + describe(refused);
            }
            return "committed"; // both balances changed together, each under its own token
        });
        return done.orElse("busy");
    }

    /** {@code key:token:currentToken:fence,...}: every item the gateway refused, and why. */
    private static String describe(Refused refused) {
        List<String> items = new ArrayList<>();
        for (Map.Entry<String, Stale> e : refused.items().entrySet()) {
            Stale s = e.getValue();
            items.add(e.getKey() + ":" + s.attemptedToken() + ":" + s.currentToken() + ":" + s.fence());
        }
        return String.join(",", items);
    }

    private static long amount(ReadOutcome read) {
        if (read instanceof ReadOutcome.Value value) {
            return Long.parseLong(new String(value.bytes(), UTF_8));
        }
        throw new IllegalStateException("an account is missing: " + read);
    }

    private void holdIfTold(boolean hold, Transfer t, long[] balance) throws InterruptedException {
        if (hold) {
            emit("HOLD " + t.from() + " " + t.to() + " " + balance[0] + " " + balance[1]);
            if (!go.tryAcquire(5, TimeUnit.MINUTES)) {
                throw new IllegalStateException("no GO in 5 minutes");
            }
        }
    }

    private void emit(String event) {
        synchronized (System.out) {
            System.out.println("EV " + id + " " + event);
            System.out.flush();
        }
    }

    /** Money to move from one account to another: up to 100, never more than the first holds. */
    private record Transfer(String from, String to, long upTo) {
        static Transfer random(List<String> accounts) {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            int a = random.nextInt(accounts.size());
            int b = (a + 1 + random.nextInt(accounts.size() - 1)) % accounts.size();
            return new Transfer(accounts.get(a), accounts.get(b), 1 + random.nextInt(100));
        }

        List<String> locksInOrder() {
            String lockFrom = GatewayAccounts.lockOf(from);
            String lockTo = GatewayAccounts.lockOf(to);
            return lockFrom.compareTo(lockTo) < 0 ? List.of(lockFrom, lockTo) : List.of(lockTo, lockFrom);
        }

        long amountWithin(long balance) {
            return Math.min(upTo, balance);
        }
    }
}
