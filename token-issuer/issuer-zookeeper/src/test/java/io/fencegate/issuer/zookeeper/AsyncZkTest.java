package io.fencegate.issuer.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.issuer.IssuerUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The operation timeout of {@link AsyncZk#bounded}: one timer serves every pending call, so these
 * prove that no call escapes it, whenever it started (calls that ZooKeeper never answers are
 * futures nobody completes). No timing is asserted, only that each call ends, and how.
 */
@Timeout(30)
class AsyncZkTest {

    private static final Duration TIMEOUT = Duration.ofMillis(200);
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    private final AsyncZk zk = new AsyncZk(TIMEOUT, scheduler);

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    @Test
    void everyUnansweredCallFailsWhetherItStartedBeforeOrWhileTheTimerWasArmed() throws Exception {
        List<CompletableFuture<Object>> unanswered = new ArrayList<>();
        List<CompletableFuture<Object>> answered = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            // Spread over more than one timeout, so some start while a timer is due and some after it fired.
            unanswered.add(zk.bounded("unanswered " + i, new CompletableFuture<>()));
            CompletableFuture<Object> answer = new CompletableFuture<>();
            answered.add(zk.bounded("answered " + i, answer));
            answer.complete("answer " + i);
            Thread.sleep(TIMEOUT.toMillis() / 2);
        }
        for (CompletableFuture<Object> call : unanswered) {
            assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(IssuerUnavailableException.class).hasMessageContaining("did not answer");
        }
        for (int i = 0; i < answered.size(); i++) {
            assertThat(answered.get(i).get(10, TimeUnit.SECONDS)).isEqualTo("answer " + i);
        }
    }

    @Test
    void aCallPendingWhenTheIssuerClosesStillFailsAndACallAfterItFailsAtOnce() throws Exception {
        CompletableFuture<Object> pending = zk.bounded("pending", new CompletableFuture<>());
        scheduler.shutdown(); // as the issuer's close does: the timer already due still fires
        assertThatThrownBy(() -> pending.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(IssuerUnavailableException.class);
        CompletableFuture<Object> late = zk.bounded("late", new CompletableFuture<>());
        assertThat(late).isCompletedExceptionally();
        assertThatThrownBy(late::join).cause().isInstanceOf(IssuerUnavailableException.class).hasMessageContaining("closed");
    }
}
