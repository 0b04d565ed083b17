package io.fencegate.store.jdbc;

import io.fencegate.schema.FencegateSchema;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.StoreLimits;
import io.fencegate.store.testkit.AbstractGuardedStoreContractTest;
import io.fencegate.store.testkit.KeyColumnChecks;
import io.fencegate.store.testkit.OutageHarness;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The contract suite on one real database; subclasses name the kind. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcContractIT extends AbstractGuardedStoreContractTest {

    protected TestDatabase db;
    private StoreLimits limits = StoreLimits.DEFAULT;

    abstract TestDatabase.Kind kind();

    @BeforeAll
    void createDatabase() throws Exception {
        db = TestDatabase.create(kind());
        try (JdbcGuardedStore first = JdbcGuardedStore.open(db.options().poolSize(2))) {
            limits = first.limits();
        }
    }

    @AfterAll
    void dropDatabase() throws Exception {
        if (db != null) {
            db.close();
        }
    }

    @Override
    protected GuardedStore newStore(GuardRule rule) {
        return JdbcGuardedStore.open(db.options().rule(rule).poolSize(4).migrate(false));
    }

    @Override
    protected GuardedStore newIndependentStore(GuardRule rule) {
        return JdbcGuardedStore.open(db.options().rule(rule).poolSize(3).migrate(false));
    }

    @Override
    protected String storeName() {
        return db.options().name();
    }

    @Override
    protected GuardedStore newStoreNamed(String name, GuardRule rule) {
        return JdbcGuardedStore.open(db.options().rule(rule).poolSize(2).migrate(false).name(name));
    }

    @Override
    protected StoreLimits limits() {
        return limits;
    }

    @Override
    protected OutageHarness outageHarness() {
        return OutageHarness.tcp(db.backend(), (proxy, rule) -> JdbcGuardedStore.open(db.options().jdbcUrl(db.urlVia(proxy))
                .rule(rule).poolSize(2).migrate(false).connectTimeout(Duration.ofSeconds(2)).queryTimeout(Duration.ofSeconds(3))));
    }

    /** fencegate_item.resource and fencegate_fence.resource: VARBINARY(2048) / VARCHAR(2048). */
    @Test
    void keysLongerThanTheKeyColumnAreRefusedAndChangeNothing() throws Exception {
        JdbcGuardedStore store = closeAfter(JdbcGuardedStore.open(db.options().poolSize(2).migrate(false)
                .limits(new StoreLimits(8192, 1024 * 1024))));
        KeyColumnChecks.assertKeysPastTheColumnAreRefused(store, key(""), 2048);
    }

    static {
        // Referenced so a missing schema module fails loudly at class load, not mid-test.
        FencegateSchema.locations(FencegateSchema.Dialect.H2);
    }
}
