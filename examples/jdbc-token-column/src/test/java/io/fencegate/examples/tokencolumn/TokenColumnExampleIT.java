package io.fencegate.examples.tokencolumn;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.examples.support.ExampleProcess;
import io.fencegate.examples.support.PostgresSchema;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The example as a user runs it, on a Postgres schema of its own and a ZooKeeper test server. */
class TokenColumnExampleIT {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void staleHoldersUpdateOfTheOwnTableIsRefused() throws Exception {
        try (TestingServer zookeeper = new TestingServer(true); PostgresSchema db = PostgresSchema.create("ex_tokencol")) {
            for (int run = 1; run <= 2; run++) { // twice: the table and columns already exist the second time
                int left = 5 - run;
                try (ExampleProcess example = ExampleProcess.program(TokenColumnExample.class.getName(),
                        db.jdbcUrl(), "postgres", zookeeper.getConnectString())) {
                    assertThat(example.awaitExit(60)).as("%s", example.seen).isZero();
                    assertThat(example.seen).as("%s", example.seen)
                            .anyMatch(l -> l.startsWith("A wakes") && l.endsWith("0 row updated (refused: B's token fenced it out)"))
                            .anyMatch(l -> l.startsWith("stock: qty " + left + ", fencing_token "));
                }
            }
        }
    }
}
