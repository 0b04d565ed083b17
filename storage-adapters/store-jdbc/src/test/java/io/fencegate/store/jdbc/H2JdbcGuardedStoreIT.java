package io.fencegate.store.jdbc;

import io.fencegate.store.testkit.OutageHarness;

/** The store contract on an in-memory H2 database of its own. */
class H2JdbcGuardedStoreIT extends AbstractJdbcContractIT {
    @Override
    TestDatabase.Kind kind() {
        return TestDatabase.Kind.H2;
    }

    @Override
    protected OutageHarness outageHarness() {
        return OutageHarness.notProxyable("in-memory H2 runs inside the test JVM: there is no TCP link to cut");
    }
}
