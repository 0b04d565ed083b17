package io.fencegate.examples.guardrow;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.examples.support.ExampleProcess;
import io.fencegate.examples.support.PostgresSchema;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The examples as a user runs them, each on a Postgres schema of its own, side by side on one
 * ZooKeeper test server (started together: most of each run is a JVM starting).
 */
class TransferExampleIT {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void transfersUnderOneTokenAndPaymentsUnderAMultiLockAreAllOrNothing() throws Exception {
        try (TestingServer zookeeper = new TestingServer(true);
                PostgresSchema transferDb = PostgresSchema.create("ex_guardrow");
                PostgresSchema paymentDb = PostgresSchema.create("ex_payment");
                ExampleProcess transfer = ExampleProcess.program(TransferExample.class.getName(),
                        transferDb.jdbcUrl(), "postgres", zookeeper.getConnectString());
                ExampleProcess payment = ExampleProcess.program(PaymentExample.class.getName(),
                        paymentDb.jdbcUrl(), "postgres", zookeeper.getConnectString())) {
            assertThat(transfer.awaitExit(90)).as("%s", transfer.seen).isZero();
            assertThat(transfer.seen).as("%s", transfer.seen)
                    .anyMatch(l -> l.matches("transfer 30 with token \\d+: applied, 2 rows; checking 70, savings 30"))
                    .anyMatch(l -> l.matches("transfer 500 with token \\d+: rolled back \\(checking would go to -430\\); checking 70, savings 30"))
                    .anyMatch(l -> l.contains("the overtaken holder's transfer") && l.contains("refused as stale, nothing ran")
                            && l.endsWith("checking 60, savings 40"))
                    .contains("money conserved: 100");

            assertThat(payment.awaitExit(90)).as("%s", payment.seen).isZero();
            assertThat(payment.seen).as("%s", payment.seen)
                    .anyMatch(l -> l.matches("alice pays bob 30 with tokens \\{accounts/alice=\\d+, accounts/bob=\\d+\\}: applied, 2 rows; alice 70, bob 30"))
                    .anyMatch(l -> l.contains("the overtaken group's payment")
                            && l.matches(".*refused, nothing ran \\(accounts/alice is at token \\d+, accounts/bob is at token \\d+\\).*")
                            && l.endsWith("alice 80, bob 20"))
                    .contains("money conserved: 100");
        }
    }
}
