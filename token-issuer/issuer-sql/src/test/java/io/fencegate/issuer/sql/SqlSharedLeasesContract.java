package io.fencegate.issuer.sql;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.testkit.SemaphoreContract;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * Read-write leases and fenced semaphores ({@link SemaphoreContract}, which runs the
 * {@code ReadWriteContract} too) on one database of the test's own; each issuer has its own pool,
 * as gateways would. One database for the class (lock names are unique per test): a schema and its
 * migrations per test cost seconds on a busy machine.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class SqlSharedLeasesContract extends SemaphoreContract {

    private SqlTestDatabase db;
    private final List<SqlLeaseIssuer> created = new CopyOnWriteArrayList<>();

    abstract SqlTestDatabase.Kind kind();

    @BeforeAll
    void createDatabase() throws Exception {
        db = SqlTestDatabase.create(kind());
    }

    @AfterEach
    void closeIssuersFirst() {
        created.forEach(SqlLeaseIssuer::close);
        created.clear();
    }

    @AfterAll
    void dropDatabase() throws Exception {
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
