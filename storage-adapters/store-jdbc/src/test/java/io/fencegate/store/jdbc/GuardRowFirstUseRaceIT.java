package io.fencegate.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencegate.schema.FencegateSchema;
import io.fencegate.store.GuardRule;
import io.fencegate.store.StatementResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Many first users of one guard row at once on MariaDB's default REPEATABLE READ, where their
 * inserts deadlock on gap locks and the database rolls back all but one per round: every one of
 * them must still get an answer, none a deadlock error.
 */
@Timeout(120)
class GuardRowFirstUseRaceIT {

    @Test
    void manyConcurrentFirstUsersOfAGuardRowAllGetAnAnswerOnRepeatableRead() throws Exception {
        try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.MARIADB)) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(db.url());
            config.setUsername(db.username());
            config.setMaximumPoolSize(16);
            try (HikariDataSource pool = new HikariDataSource(config)) {
                FencegateSchema.migrate(pool);
                DSLContext dsl = DSL.using(pool, SQLDialect.MARIADB);
                GuardRowTransactions guarded = GuardRowTransactions.of(dsl, GuardRule.STRICT);
                ExecutorService threads = Executors.newFixedThreadPool(16);
                AtomicLong tokens = new AtomicLong();
                try {
                    for (int round = 0; round < 20; round++) {
                        String key = "first-use/" + round;
                        CountDownLatch start = new CountDownLatch(1);
                        List<Future<StatementResult>> users = new ArrayList<>();
                        for (int u = 0; u < 16; u++) {
                            users.add(threads.submit(() -> {
                                start.await();
                                return guarded.run(key, tokens.incrementAndGet(), tx -> 0);
                            }));
                        }
                        start.countDown();
                        for (Future<StatementResult> f : users) {
                            assertThat(f.get(60, TimeUnit.SECONDS)).isNotNull();
                        }
                    }
                } finally {
                    threads.shutdownNow();
                }
            }
        }
    }
}
