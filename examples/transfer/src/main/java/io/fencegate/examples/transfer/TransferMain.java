package io.fencegate.examples.transfer;

import io.fencegate.client.FencegateClient;
import io.fencegate.examples.support.PostgresSchema;
import io.fencegate.examples.support.SqlOnlyGateway;
import io.fencegate.examples.support.Teardown;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./fencegate transfer}: teller processes move money between the accounts of a bank, each
 * transfer under a lock on both accounts, and one teller is frozen with SIGSTOP between its read and
 * its write, past its locks' ttl. Mode 1 (a plain lock) creates or destroys money; mode 2 (fencegate:
 * MultiLock, fenced multi-read, one guarded transaction) refuses the stale transfer and keeps the
 * total. Exits 0 when both do what they should, 1 otherwise.
 */
@Command(name = "fencegate transfer", mixinStandardHelpOptions = true,
        description = "Move money between accounts while a teller is frozen past its locks: a plain lock vs fencegate.")
public final class TransferMain implements Callable<Integer> {
    static final long OPENING_BALANCE = 1000;

    @Option(names = "--tellers", defaultValue = "3", description = "Teller processes, 2 to 6 (default 3).")
    int tellers;

    @Option(names = "--accounts", defaultValue = "5", description = "Accounts, 3 to 8 (default 5).")
    int accounts;

    @Option(names = "--jdbc-url", defaultValue = PostgresSchema.DEFAULT_URL,
            description = "The PostgreSQL database; the example creates two schemas there and drops them at the end"
                    + " (default: ${DEFAULT-VALUE}).")
    String jdbcUrl;

    @Option(names = "--db-user", defaultValue = "postgres", description = "User for --jdbc-url (default: postgres).")
    String dbUser;

    @Option(names = "--db-password", defaultValue = "", description = "Password for --jdbc-url (default: none).")
    String dbPassword;

    @Option(names = "--redis", defaultValue = "redis://127.0.0.1:6379",
            description = "Redis for mode 1's plain lock, under a key prefix of the run's own (default: ${DEFAULT-VALUE}).")
    String redis;

    public static void main(String[] args) {
        System.exit(new CommandLine(new TransferMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        check(tellers >= 2 && tellers <= 6, "--tellers: expected 2 to 6, got " + tellers);
        check(accounts >= 3 && accounts <= 8, "--accounts: expected 3 to 8, got " + accounts);
        check(jdbcUrl.startsWith("jdbc:postgresql://"), "--jdbc-url: expected jdbc:postgresql://..., got '" + jdbcUrl + "'");
        check(redis.startsWith("redis://") && !redis.contains("#"), "--redis: expected redis://host:port, got '" + redis + "'");
        long started = System.nanoTime();
        return Teardown.around("transfer", teardown -> run(teardown, started));
    }

    private int run(Teardown teardown, long started) throws Exception {
        Path work = teardown.temporaryFolder("fencegate-transfer");
        List<String> ids = IntStream.range(0, accounts).mapToObj(i -> "account/" + i).toList();
        PostgresSchema bankSchema = teardown.add(PostgresSchema.create("fg_transfer", jdbcUrl, dbUser, dbPassword));
        PostgresSchema gatewaySchema = teardown.add(PostgresSchema.create("fg_transfer_gw", jdbcUrl, dbUser, dbPassword));
        SqlAccounts sql = teardown.add(new SqlAccounts(bankSchema.jdbcUrl(), dbUser, dbPassword));
        sql.create(ids, OPENING_BALANCE);
        // Mode 1's lock keys carry the run's own prefix and a ttl: they are gone by themselves shortly after.
        String redisLock = redis + "#fg-transfer-" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16) + ":";
        // The tellers' JVMs start while the gateway does; they learn its address when it listens.
        BlockingQueue<TellerProcess.Event> events = new LinkedBlockingQueue<>();
        List<TellerProcess> processes = new ArrayList<>();
        for (int i = 0; i < tellers; i++) {
            processes.add(teardown.add(TellerProcess.start(i, List.of(String.join(",", ids), bankSchema.jdbcUrl(), dbUser,
                    dbPassword.isEmpty() ? "-" : dbPassword, redisLock), events)));
        }
        SqlOnlyGateway gateway = teardown.add(SqlOnlyGateway.start(work, gatewaySchema.jdbcUrl(), dbUser, dbPassword,
                GatewayAccounts.STORE, null));
        GatewayAccounts items = new GatewayAccounts(
                FencegateClient.builder(gateway.uri()).timeout(Duration.ofSeconds(10)).build(), ids);
        items.create(OPENING_BALANCE);
        processes.forEach(p -> p.gateway(gateway.uri().toString()));
        System.out.printf("fencegate transfer: %d teller processes move money between %d accounts of %d (total %d);%n"
                        + "each transfer locks both accounts (ttl %d ms), reads both balances, writes both.%n"
                        + "Teller 0 is frozen with SIGSTOP between its read and its write, past its locks' ttl, then SIGCONT.%n"
                        + "bank: PostgreSQL %s, schemas %s (mode 1) and %s (mode 2, the gateway's store and leases)%n%n",
                tellers, accounts, OPENING_BALANCE, OPENING_BALANCE * accounts, Teller.TTL.toMillis(),
                where(jdbcUrl), bankSchema.name(), gatewaySchema.name());
        awaitReady(events, processes);
        Round round = new Round(processes, events);
        Round.Result plain = play(round, Mode.PLAIN_LOCK, sql);
        Round.Result fenced = play(round, Mode.FENCEGATE, items);
        boolean asExpected = !plain.exact() && fenced.exact() && fenced.held().startsWith("refused");
        System.out.printf("%n%s · %.1f s%n", asExpected
                ? "A plain lock let a frozen teller's stale write change the bank's total; fencegate refused it, the total is exact."
                : "NOT AS EXPECTED: mode 1 must change the total, mode 2 must refuse the stale transfer and keep it.",
                (System.nanoTime() - started) / 1e9);
        return asExpected ? 0 : 1;
    }

    private static Round.Result play(Round round, Mode mode, Balances bank) throws Exception {
        System.out.printf("mode %s, %s: %s%n", mode.number, mode.title, mode.how);
        Round.Result r = round.run(mode, bank);
        if (r.held().equals("committed")) {
            System.out.println("  SIGCONT: its write APPLIED, both balances as it computed them from its stale read");
        } else {
            System.out.println("  SIGCONT: its transaction was REFUSED (409 stale), nothing applied:");
            for (String item : r.held().substring("refused ".length()).split(",")) {
                String[] f = item.split(":"); // key:token:currentToken:fence
                System.out.printf("    %s: its token %s, the item's fence %s (current token %s)%n", f[0], f[1], f[3], f[2]);
            }
        }
        long delta = r.after() - r.before();
        String verdict = delta == 0 ? "exact" : delta > 0 ? delta + " CREATED out of nothing" : -delta + " DESTROYED";
        System.out.printf("  total before %d, after %d: %s · %d transfers committed, %d refused%n%n",
                r.before(), r.after(), verdict, r.committed(), r.refused());
        return r;
    }

    private static void awaitReady(BlockingQueue<TellerProcess.Event> events, List<TellerProcess> processes) throws Exception {
        Set<Integer> ready = new HashSet<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (ready.size() < processes.size()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("tellers not ready after 90 s");
            }
            TellerProcess.Event event = events.poll(100, TimeUnit.MILLISECONDS);
            if (event == null) {
                continue;
            }
            switch (event.kind()) {
                case "READY" -> ready.add(event.actor());
                case "EXIT", "ERROR" -> throw new IllegalStateException("teller " + event.actor() + " failed to start: "
                        + String.join(" ", event.args()) + " " + processes.get(event.actor()).otherOutput());
                default -> { }
            }
        }
    }

    private void check(boolean ok, String message) {
        if (!ok) {
            throw new CommandLine.ParameterException(new CommandLine(this), message);
        }
    }

    /** host:port/database of a JDBC URL, without its parameters (which may hold a password). */
    private static String where(String url) {
        String rest = url.substring(url.indexOf("//") + 2);
        int params = rest.indexOf('?');
        return params < 0 ? rest : rest.substring(0, params);
    }
}
