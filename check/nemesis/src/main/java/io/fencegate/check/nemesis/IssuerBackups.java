package io.fencegate.check.nemesis;

import io.fencegate.testing.DatabaseServer;
import io.fencegate.testing.LogicalDumps;
import io.fencegate.testing.PostgresServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Logical backups of the sql issuer's tables only (never the store's), taken and restored with the
 * server's own tools while the gateways run, as an operator would: {@code pg_dump --clean} and
 * {@code psql}, or {@code mysqldump} and {@code mysql}. A restore brings back older fence rows, the
 * issuer clock's offset as it was, and loses the grants since.
 */
final class IssuerBackups {
    private static final List<String> TABLES = List.of("fencegate_lock_fence", "fencegate_lease_grant", "fencegate_lease_waiter",
            "fencegate_lease_reader", "fencegate_semaphore");

    private static final String VIEW = "fencegate_leases";
    private static final int RESTORE_ATTEMPTS = 8;

    private final DatabaseServer server;
    private final Path dir;
    private int taken;
    private Path latest;

    IssuerBackups(DatabaseServer server, Path dir) throws IOException {
        this.server = server;
        this.dir = Files.createDirectories(dir);
    }

    /** Takes a backup; the next {@link #restoreOlder} goes back to it. */
    void take() throws Exception {
        Path file = dir.resolve("issuer-" + ++taken + ".sql");
        LogicalDumps.dump(server, file, server instanceof PostgresServer ? withView(TABLES) : TABLES);
        latest = file;
    }

    /**
     * Restores the last backup, after taking a new one (the next restore goes back to just before this one).
     * The restore is one transaction, so one that meets a deadlock with a grant changed nothing and is
     * tried again after a random pause: every injected restore then counts.
     */
    String restoreOlder() throws Exception {
        Path older = latest;
        take();
        for (int attempt = 1; ; attempt++) {
            try {
                LogicalDumps.restore(server, older);
                return "the issuer's tables restored from " + older.getFileName() + " ("
                        + (server instanceof PostgresServer ? "pg_dump" : "mysqldump") + ")"
                        + (attempt > 1 ? " at attempt " + attempt + ", the earlier ones rolled back by a deadlock" : "");
            } catch (IllegalStateException e) {
                if (attempt == RESTORE_ATTEMPTS || !isDeadlock(e.getMessage())) {
                    throw e;
                }
                // Out of step with the grants that took part: at once, the same interleaving deadlocks again.
                Thread.sleep(java.util.concurrent.ThreadLocalRandom.current().nextLong(100, 1000));
            }
        }
    }

    /**
     * On PostgreSQL the operators' view on the tables goes into the dump too, as production.md says:
     * {@code pg_dump --clean} must drop it before the tables it reads. MariaDB's dump is the rows alone.
     */
    private static List<String> withView(List<String> tables) {
        List<String> all = new java.util.ArrayList<>(tables);
        all.add(VIEW);
        return all;
    }

    private static boolean isDeadlock(String toolOutput) {
        String s = String.valueOf(toolOutput).toLowerCase(java.util.Locale.ROOT);
        return s.contains("deadlock detected") || s.contains("deadlock found");
    }
}
