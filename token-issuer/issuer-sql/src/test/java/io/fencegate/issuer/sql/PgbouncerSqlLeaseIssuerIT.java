package io.fencegate.issuer.sql;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.testkit.AbstractLeaseIssuerContractTest;
import io.fencegate.testing.PgbouncerServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * The LeaseIssuer contract through pgbouncer in transaction mode (4 server connections shared by
 * every issuer's pool): the issuer keeps no session state, so consecutive calls may run on
 * different server connections. Notifications are off (LISTEN needs a session): waiters poll.
 * The tables are migrated through pgbouncer too. (Database {@code fencegate} exists only in
 * pgbouncer: no call can bypass it.)
 */
class PgbouncerSqlLeaseIssuerIT extends AbstractLeaseIssuerContractTest {

    private static SqlTestDatabase db;
    private static Path dir;
    private static PgbouncerServer bouncer;
    private final List<SqlLeaseIssuer> created = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        db = SqlTestDatabase.create(SqlTestDatabase.Kind.POSTGRES);
        dir = Files.createTempDirectory(Path.of("/tmp"), "fg-pgbouncer");
        bouncer = PgbouncerServer.start(dir, 5432, "test", db.schema(), 4);
    }

    @AfterAll
    static void stop() throws Exception {
        if (bouncer != null) {
            bouncer.close();
        }
        if (db != null) {
            db.close();
        }
        if (dir != null) {
            try (var files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @AfterEach
    void closeIssuers() {
        created.forEach(SqlLeaseIssuer::close);
        created.clear();
    }

    @Override
    protected LeaseIssuer newIssuer() {
        SqlLeaseIssuer issuer = SqlLeaseIssuer.builder().jdbcUrl(bouncer.jdbcUrl(30)).user("postgres").password("")
                .poolSize(4).notifications(false).build();
        created.add(issuer);
        return issuer;
    }
}
