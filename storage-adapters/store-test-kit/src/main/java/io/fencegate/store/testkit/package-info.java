/**
 * The contract every {@link io.fencegate.store.GuardedStore} passes against its real backend.
 *
 * <p>An adapter's test module depends on this kit at test scope and extends
 * {@link io.fencegate.store.testkit.AbstractGuardedStoreContractTest}:
 *
 * <pre>{@code
 * @TestInstance(TestInstance.Lifecycle.PER_CLASS)
 * class MyStoreIT extends AbstractGuardedStoreContractTest {
 *     @BeforeAll void createNamespace() { ... }           // own database / schema / directory
 *     @AfterAll  void dropNamespace()   { ... }
 *     protected GuardedStore newStore(GuardRule rule)            { return new MyStore(..., rule); }
 *     protected GuardedStore newIndependentStore(GuardRule rule) { return new MyStore(..., rule); } // own pool
 *     protected OutageHarness outageHarness() {
 *         return OutageHarness.tcp(new InetSocketAddress("127.0.0.1", 5432), (proxy, rule) -> ... connect to proxy ...);
 *         // or, without a TCP link: return OutageHarness.custom(rule -> myOutage(rule));
 *     }
 *     // optional: limits(), outageFailureBound(), newLeaseIssuer() (the counter test's real issuer;
 *     // by default ZooKeeper on an in-process server: fencegate-issuer-zookeeper and curator-test at test scope)
 * }
 * }</pre>
 *
 * <p>The contract's themes are bases in one line, each a file: {@link io.fencegate.store.testkit.GuardContract},
 * {@link io.fencegate.store.testkit.FencedReadContract}, {@link io.fencegate.store.testkit.ConcurrencyContract},
 * {@link io.fencegate.store.testkit.OutageContract}, {@link io.fencegate.store.testkit.ClaimContract},
 * {@link io.fencegate.store.testkit.TransactionContract} (a store that does not transact by
 * design is held to refusing every transaction instead); what they
 * share is {@link io.fencegate.store.testkit.StoreContractSupport}.
 *
 * <p>A store that also offers named statements under a guard row
 * ({@link io.fencegate.store.GuardedStatements}) has a second suite,
 * {@link io.fencegate.store.testkit.AbstractGuardedStatementsContractTest}, in a class of its own:
 * it supplies {@code newStatements(rule)} and plain SQL on its namespace
 * ({@code adminExecute}, {@code adminQueryLong}); each test creates and drops its own table.
 *
 * <p>A store that coalesces the writes in flight ({@link io.fencegate.store.backend.WriteCoalescer}) also
 * extends {@link io.fencegate.store.testkit.AbstractCoalescedWritesTest} in a class of its own
 * ({@code coalescingStore(connections)}, {@code writesOf(store)}): many writers with random tokens
 * on a few keys, every answer checked against one serial history
 * ({@link io.fencegate.store.testkit.OverlappingWriters}), and no batch holding a key twice.
 *
 * <p>Tests use keys under a random prefix per test, so stores of one class may share data.
 * {@code fencegate-testing}'s {@code TcpProxy} cuts ({@code cut()}) or freezes ({@code stall()})
 * a loopback TCP link for outage tests of an adapter's own, and its {@code ScratchDatabase} is a
 * random Postgres schema or MariaDB database on the shared servers, dropped at close.
 */
package io.fencegate.store.testkit;
