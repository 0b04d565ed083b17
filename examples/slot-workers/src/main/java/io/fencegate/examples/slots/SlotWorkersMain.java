package io.fencegate.examples.slots;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.ReadOutcome;
import io.fencegate.examples.support.PostgresSchema;
import io.fencegate.examples.support.SqlOnlyGateway;
import io.fencegate.examples.support.Teardown;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./fencegate slot-workers}: worker processes share a fenced semaphore of N permits through
 * the gateway; each permit is a slot, and its holder owns the slot's partition. One more worker
 * than slots waits for a permit. Worker 0 is frozen with SIGSTOP between a read and a write of its
 * partition, past its permit's ttl; the waiting worker gets the slot and carries on; worker 0 is
 * thawed and writes, and the gateway refuses it (409). Exits 0 when the late write was refused and
 * every partition is intact, 1 otherwise.
 */
@Command(name = "fencegate slot-workers", mixinStandardHelpOptions = true,
        description = "Workers on a fenced semaphore, one frozen past its permit: its late writes are refused.")
public final class SlotWorkersMain implements Callable<Integer> {
    /** Jobs every slot has done before the freeze, and the successor does before the thaw. */
    static final int JOBS_BEFORE = 3;

    @Option(names = "--slots", defaultValue = "2", description = "Permits of the semaphore, 1 to 5 (default 2); one more worker waits.")
    int slots;

    @Option(names = "--jdbc-url", defaultValue = PostgresSchema.DEFAULT_URL,
            description = "The PostgreSQL database; the example creates a schema there and drops it at the end"
                    + " (default: ${DEFAULT-VALUE}).")
    String jdbcUrl;

    @Option(names = "--db-user", defaultValue = "postgres", description = "User for --jdbc-url (default: postgres).")
    String dbUser;

    @Option(names = "--db-password", defaultValue = "", description = "Password for --jdbc-url (default: none).")
    String dbPassword;

    public static void main(String[] args) {
        System.exit(new CommandLine(new SlotWorkersMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        check(slots >= 1 && slots <= 5, "--slots: expected 1 to 5, got " + slots);
        check(jdbcUrl.startsWith("jdbc:postgresql://"), "--jdbc-url: expected jdbc:postgresql://..., got '" + jdbcUrl + "'");
        long started = System.nanoTime();
        return Teardown.around("slot-workers", teardown -> run(teardown, started));
    }

    private int run(Teardown teardown, long started) throws Exception {
        Path work = teardown.temporaryFolder("fencegate-slot-workers");
        PostgresSchema schema = teardown.add(PostgresSchema.create("fg_slots", jdbcUrl, dbUser, dbPassword));
        // The workers' JVMs start while the gateway does; they learn its address when it listens.
        BlockingQueue<WorkerProcess.Event> queue = new LinkedBlockingQueue<>();
        List<WorkerProcess> workers = new ArrayList<>();
        for (int i = 0; i <= slots; i++) {
            workers.add(teardown.add(WorkerProcess.start(i, List.of(Integer.toString(slots)), queue)));
        }
        // A worker writes its partition once a job under one permit: same-lease lets a token write an item again.
        SqlOnlyGateway gateway = teardown.add(SqlOnlyGateway.start(work, schema.jdbcUrl(), dbUser, dbPassword,
                Worker.STORE, "same-lease"));
        FencegateClient client = FencegateClient.builder(gateway.uri()).timeout(Duration.ofSeconds(10)).build();
        workers.forEach(w -> w.gateway(gateway.uri().toString()));
        System.out.printf("fencegate slot-workers: %d worker processes share the fenced semaphore %s of %d permits (ttl %d ms);%n"
                        + "a permit's slot k is the lock %s/k, which guards the partition slot/k of store %s.%n"
                        + "Worker %d waits for a permit. Worker 0 is frozen with SIGSTOP between a read and a write of its%n"
                        + "partition, past its permit's ttl, then SIGCONT.%n"
                        + "gateway: PostgreSQL %s, schema %s (its store and its leases)%n%n",
                slots + 1, Worker.SEMAPHORE, slots, Worker.TTL.toMillis(), Worker.SEMAPHORE, Worker.STORE, slots,
                where(jdbcUrl), schema.name());
        Events events = new Events(queue, workers);
        for (WorkerProcess w : workers) {
            events.await("worker " + w.id + " to start", 90, e -> e.actor() == w.id && e.kind().equals("READY"));
        }
        Scenario.Result result = new Scenario(workers, events, slots).run();
        List<String> broken = new ArrayList<>();
        System.out.println("\nevery partition, as the gateway has it:");
        for (int slot = 0; slot < slots; slot++) {
            Ledger ledger = ledger(client, slot);
            String problems = ledger.problems();
            // An unfenced late write would leave a partition in order (it rewrites it whole, from its
            // stale read): what shows it is a job past the one it read, under the frozen worker's token.
            boolean lateWriteLanded = slot == result.slot() && ledger.hasJobAfter(result.jobRead(), result.frozenToken());
            if (lateWriteLanded) {
                problems = (problems.isEmpty() ? "" : problems + "; ") + "worker 0's late write landed";
            }
            System.out.printf("  %s: %d jobs, %s: %s%n", Worker.partition(slot), ledger.lastJob(),
                    problems.isEmpty() ? "intact (jobs 1.." + ledger.lastJob() + ", each once, in order)" : "CORRUPTED (" + problems + ")",
                    ledger.holders());
            if (!problems.isEmpty()) {
                broken.add(Worker.partition(slot));
            }
        }
        boolean asExpected = result.refused() && broken.isEmpty();
        System.out.printf("%n%s · %.1f s%n", asExpected
                ? "The frozen worker's late write was refused; every partition is intact."
                : "NOT AS EXPECTED: the late write must be refused and every partition intact.",
                (System.nanoTime() - started) / 1e9);
        return asExpected ? 0 : 1;
    }

    /** A plain read of a slot's partition: claims nothing. */
    static Ledger ledger(FencegateClient client, int slot) {
        ReadOutcome read = client.get(Worker.STORE, Worker.partition(slot));
        return Ledger.parse(read instanceof ReadOutcome.Value v ? new String(v.bytes(), UTF_8) : "");
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
