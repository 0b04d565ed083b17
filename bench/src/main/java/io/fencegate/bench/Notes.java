package io.fencegate.bench;

/** How each comparison is set up, printed under the figures so they can be read without the code. */
final class Notes {
    private Notes() {}

    static final String TEXT = """
            ## How each comparison is set up

            - **Leases, ZooKeeper.** One in-process ZooKeeper (Curator's `TestingServer`, which fsyncs its
              transaction log) serves fencegate's issuer in both token modes, raw Curator (create an
              EPHEMERAL_SEQUENTIAL node, delete it: the floor, it excludes nobody) and Curator's
              `InterProcessMutex`, all on one Curator session. Hazelcast's `FencedLock` runs on 3 embedded
              CP members in the bench's JVM (Raft in memory, no disk): a different system, so a loose
              comparison, but interleaved like the others. Uncontended: worker *i* takes lock `w`*i*, in
              two call shapes: *blocking threads* (1/16 threads, each calling acquire, then release, and
              waiting for each) and *async, in flight* (1/16 acquire-then-release chains, each slot starting
              its next chain when the last is answered): fencegate's issuer and raw Curator (background
              calls) have asynchronous APIs; `InterProcessMutex` and `FencedLock` (owned by the calling
              thread) have none, so in the async shape their blocking calls run on a pool of 16 threads,
              which is what an asynchronous caller pays to use them. Contended (blocking threads): all 16
              workers take one lock; throughput is hand-offs per second, latency includes the wait,
              fairness is the fewest acquisitions of one worker over the most of one. Raw create+delete is
              not a lock, so under contention it stays the floor, not a rival.
            - **Leases, Redis.** The shared Redis 7 on 127.0.0.1:6379 (no persistence), every key under
              a random prefix removed at the end. fencegate's issuer has a file high-water mark (blocks of
              1000 tokens and up, fsync'd, the next block reserved in the background at half use) and sends
              the acquires (and the releases) queued behind the two in flight as one script call. The raw Lua floor is one `EVALSHA` of SET NX PX + INCR and one of
              compare-and-delete over one Lettuce connection; having no queue to wait on, it polls every
              0.2 ms when the lock is held. Redisson uses its defaults (pub/sub wake-ups, watchdog). Both
              call shapes as on ZooKeeper: the floor's async shape is Lettuce's async API on the same
              connection, Redisson's is `lockAndGetTokenAsync`/`lockAsync` and `unlockAsync` with the
              calling thread's id.
            - **Leases: what one pair costs the backend.** Counted, not timed, by `LeasePairCost` (bench
              sources, run by hand): one thread, one lock, 500 uncontended acquire+release pairs after a
              warm-up, on servers of its own. Round trips are requests the client sent; on Redis the
              commands are MONITOR's lines (those sent, and those a script ran); on ZooKeeper the write
              transactions are how far the zxid moved (each is logged and fsync'd), and Hazelcast's are
              the Raft entries its CP groups committed.

              | contender | round trips | backend work a pair |
              | --- | --- | --- |
              | fencegate ZooKeeper (zxid) | 2 | 2 write transactions (acquire: delete+create of the lock node; release: create of the grant node + setData of the lock node; docs/PERFORMANCE.md says what each op pays for) |
              | fencegate ZooKeeper (cversion) | 3 | 3 write transactions (its token is known only once the transaction applied, so its grant record is written after) |
              | raw Curator create+delete | 2 | 2 write transactions (1 op each) |
              | Curator InterProcessMutex | 3 | 2 write transactions and a getChildren |
              | Hazelcast FencedLock (3 CP members) | 2 invocations | 2 Raft entries, replicated to 2 followers, in memory (no disk) |
              | fencegate Redis | 2 | 15 commands: 2 `EVALSHA`; acquire `MGET` (lock, counter, ceiling, delay, run, lease-clock offset), `TIME`, `INFO replication`, `INCR`, `SET` lock, `ZADD` listing, `ZADD`+`ZCARD`+`PEXPIRE` grant log (its member names the holder); release `MGET`, `DEL`, `SET` released-marker, `ZREM` |
              | raw Lua floor | 2 | 6 commands: 2 `EVALSHA`; `SET NX PX`, `INCR`; `GET`, `DEL` |
              | Redisson RFencedLock | 3 | 13 commands: 2 `EVALSHA` and a `DEL`; 10 run by the scripts: `EXISTS`, `HEXISTS`, 2 `HINCRBY`, `PEXPIRE`, `INCR`, `SET`, `GET`, `DEL`, `PUBLISH` |
              | Redisson RLock | 3 | 12 commands: as RFencedLock without the token's `INCR` |

            - **Leases, SQL.** The shared PostgreSQL and MariaDB, a schema (database) of the run's own
              per server, dropped at the end. fencegate's `SqlLeaseIssuer` has a pool of its own (16
              connections and JDBC threads, as a gateway has); it is driven from 1/16 blocking threads and
              with 1/16 acquire-then-release chains in flight (its API is asynchronous). ShedLock's
              `JdbcTemplateLockProvider` (`lock` + `unlock`, its default: one transaction a call),
              Spring Integration's `JdbcLockRegistry` (`obtain`, `lock`, `unlock`; `DefaultLockRepository`
              with a `DataSourceTransactionManager`) and the floor share one HikariCP pool of 16. The floor
              is two bare autocommit statements on a row per lock: the claim, an `UPDATE … RETURNING token`
              that raises the token if the row is free or expired (on MariaDB, which has no RETURNING on
              UPDATE, `token = LAST_INSERT_ID(token + 1)`, read back from the same reply), and the release,
              an `UPDATE` that clears the holder (a `DELETE` would take the lock's token with it). It keeps
              no grant history, no waiter line and no floor for restores. Hand-off (PostgreSQL): two issuer
              instances, as two gateways; the holder releases through one after 10–110 ms, a waiter queued
              on the other is granted; the latency runs from the release call to that grant. The release
              goes through the other instance on purpose: an instance wakes its own waiters directly, the
              other's only by NOTIFY or their polling.
            - **Gateway.** `fencegate serve` runs as a child process (embedded ZooKeeper issuer,
              `-Xmx512m`) with a reactive Postgres store and a JDBC MariaDB store, each with a pool of 16
              connections, rule `same-lease` and one store lock, so one lease's token writes every key
              many times (the guard is still judged on every row). A freshly launched JVM spends its first
              tens of seconds compiling hot code (pgbench is native), so before anything is measured the
              gateway is loaded (1 and 16 PUTs in flight: `WebClient` on both stores and the Java client on
              its two transports, which compiles the bench JVM's side of every HTTP contender alike; rounds
              of 8 s) until its JIT has
              settled: `jvm_compilation_time_ms_total` on its `/metrics` grew by less than 2% of the round
              in two rounds in a row (at most 90 s; the bench's output says how long it took). The load comes from a Vert.x
              `WebClient` in the bench process keeping 1/16/64 PUTs in flight, 100-byte values over 10k
              keys. pgbench runs the statement the gateway sends for a lone write (`PostgresGuardSql.write`)
              with the same key space, value and token, with as many connections as requests in flight
              (`-M prepared`), one write a transaction; the gateway's store coalesces the writes in
              flight into one statement and one commit on each of a quarter of its 16 connections
              (`writeBatch`; a lone write goes alone), which is what it is measured on.
              The plain upsert goes to a table of the same shape without the guard. On MariaDB the
              baselines are the JDBC store used as a library in the bench's JVM (the same coalesced
              transactions, no HTTP) and a plain `INSERT … ON DUPLICATE KEY UPDATE` over HikariCP.
            - **Java client.** `FencegateClient.putAsync` on its default transport (Apache HttpClient 5,
              classic, pooled; each exchange blocking on one of the client's own threads, the next PUT of a
              slot, started in the previous one's dependent stage, made by that same thread) against a
              pooled Vert.x `WebClient`, 16 PUTs in flight each, on the same gateway and store; and the
              same client on a JDK `HttpClient` (HTTP/1.1, direct executor), the client's earlier transport.
            - **Python and Node clients.** A gateway of their own with the Java client's store (reactive
              Postgres, `same-lease`, one store lock, 100-byte values over 10k keys). Each measurement is
              a child process of the language (`bench/clients/`), 16 PUTs in flight: in Python 16
              threads, the client's `put` against `http.client` with one keep-alive connection a thread;
              in Node 16 async loops, the client's `write` against `fetch` (Node's own, pooled). Both
              loops send the same header and body, check the status and read the answer; the ratio is
              the client's cost over the least a user of that language would write. Every measurement
              is a fresh process, so its warm-up is at least 3 s (Node's JIT starts cold each time).
            - **Library.** jOOQ on Postgres: `TokenColumnGuard` (`admits` + `advanceTo`) against the plain
              update of the same 1000 rows, autocommit, HikariCP. Files: `FilesGuardedStore.write`
              against a plain temp-file, fsync, rename, fsync-the-directory write.
            - **ShedLock.** One lock + unlock through ShedLock's `LockProvider` API, each worker on its own
              job name (`lockAtMostFor` 30 s, `lockAtLeastFor` 0), createdAt on ShedLock's own clock.
              fencegate's `FencedLockProvider` takes a lease with a token and keeps it alive from a third of
              its ttl on; its unlock sends the release without waiting for the answer, and a lock of the
              same name waits for this process's own release first. On Redis: the Redis issuer (the
              Redis section's setup) against ShedLock's `RedisLockProvider` (Spring Data Redis on Jedis,
              its default pool) on the same Redis. On PostgreSQL: the SQL issuer (its own HikariCP pool
              of 16) against ShedLock's `JdbcTemplateLockProvider` (HikariCP, 16), one schema of their own
              on the shared server. What a pair costs the backend, counted on servers of its own
              (`ShedLockPairCost`): on Redis two script calls running 15 commands (17 before the acquire read its run key in its MGET and the release stopped asking PTTL), against ShedLock's
              SET + DEL; on PostgreSQL two transactions of four statements each, against ShedLock's two of
              one UPDATE each. docs/spring.md says what each of them pays for.
            - **MultiLock: a group of 2.** On each issuer of the lease sections (ZooKeeper zxid, Redis, SQL
              on PostgreSQL and on MariaDB, each its section's setup), `MultiLock` takes two locks of its
              slot as a group (in one canonical order, one after the other) and releases the group (both
              releases sent at once), against the same issuer taking the two locks with two acquires in
              sequence and releasing them with two releases in sequence: what a caller writes without it.
              Uncontended, in flight; one operation is both locks acquired and released.
            - **Read leases and semaphore permits** (`./bench/run --only readwrite`). Each issuer against
              the recipe its users run on the same backend, all in flight at 1 and 16, one operation an
              acquire and its release. Read leases: every reader takes the one lock `shared` (read leases
              exist to be held together). On ZooKeeper (its own in-process `TestingServer`, one Curator
              session for all) the issuer in zxid mode against Curator's `InterProcessReadWriteLock` read
              lock, and permits of one semaphore of 16 against `InterProcessSemaphoreV2` (16 leases);
              Curator's recipes only block, so their calls run on a pool of 16 threads. On Redis (the
              shared server, keys under a random prefix) the issuer against Redisson's `RReadWriteLock`
              read lock (`lockAsync`/`unlockAsync`, a holder id of its own each acquire) and `RSemaphore`
              (16 permits set once, `acquireAsync`/`releaseAsync`; it has no lease time, so a holder that
              dies keeps its permit). The SQL issuer on PostgreSQL (a schema of the run's own, a pool of
              16) has no SQL peer: its read lease and permit run beside its own write lease (a lock a
              slot). Round trips per acquire+release, counted one at a time by `ReadWriteCost` (bench
              sources, run by hand): ZooKeeper requests from Curator's tracer, Redis commands sent from
              MONITOR on a server of its own, SQL statements and commits the issuer's connections sent.
            - **Two-item transfer.** The gateway's `bank` store (reactive Postgres, `same-lease`, a lock per
              account: 256 accounts, each with a lease of its own held for the run) takes one
              `POST /v1/stores/bank/transactions` writing two random accounts (100 bytes each), each with its
              own lease's token, from Vert.x WebClient at 16 in flight. pgbench, with 16 connections on the
              same table (accounts of its own), runs the same two guarded upserts in one `BEGIN … END`
              (the floor the target names) and, as a second floor, the statements the gateway's transaction
              itself sends: lock both rows `FOR UPDATE`, then advance both. Both pgbench scripts write the
              lower account first, as the gateway locks in key order, so neither deadlocks.
            - Everything runs on one machine: the load generators, the gateway and the databases share
              its CPUs, so a faster server side shows up only as far as the client side leaves room.
            """;
}
