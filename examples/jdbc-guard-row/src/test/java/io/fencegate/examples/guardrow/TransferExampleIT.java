package io.fencegate.examples.guardrow;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.examples.support.ExampleProcess;
import io.fencegate.examples.support.PostgresSchema;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The example as a user runs it, on a Postgres schema of its own and a ZooKeeper test server. */
class TransferExampleIT {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void transfersAreAllOrNothingUnderOneToken() throws Exception {
        try (TestingServer zookeeper = new TestingServer(true); PostgresSchema db = PostgresSchema.create("ex_guardrow");
                ExampleProcess example = ExampleProcess.program(TransferExample.class.getName(),
                        db.jdbcUrl(), "postgres", zookeeper.getConnectString())) {
            assertThat(example.awaitExit(60)).as("%s", example.seen).isZero();
            assertThat(example.seen).as("%s", example.seen)
                    .anyMatch(l -> l.matches("transfer 30 with token \\d+: applied, 2 rows; checking 70, savings 30"))
                    .anyMatch(l -> l.matches("transfer 500 with token \\d+: rolled back \\(checking would go to -430\\); checking 70, savings 30"))
                    .anyMatch(l -> l.contains("the overtaken holder's transfer") && l.contains("refused as stale, nothing ran")
                            && l.endsWith("checking 60, savings 40"))
                    .contains("money conserved: 100");
        }
    }
}
