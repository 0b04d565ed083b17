package io.fencegate.issuer.sql;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.testkit.SemaphoreContract;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Read-write leases and fenced semaphores ({@link SemaphoreContract}, which runs the
 * {@code ReadWriteContract} too) on one database of the test's own; each issuer has its own pool,
 * as gateways would.
 */
abstract class SqlSharedLeasesContract extends SemaphoreContract {

    private SqlTestDatabase db;
    private final List<SqlLeaseIssuer> created = new CopyOnWriteArrayList<>();

    abstract SqlTestDatabase.Kind kind();

    @BeforeEach
    void createDatabase() throws Exception {
        db = SqlTestDatabase.create(kind());
    }

    @AfterEach
    void dropDatabase() throws Exception {
        created.forEach(SqlLeaseIssuer::close);
        created.clear();
        if (db != null) {
            db.close();
        }
    }

    @Override
    protected LeaseIssuer newIssuer() {
        SqlLeaseIssuer issuer = db.issuer().build();
        created.add(issuer);
        return issuer;
    }
}
