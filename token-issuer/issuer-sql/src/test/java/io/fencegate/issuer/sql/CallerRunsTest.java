package io.fencegate.issuer.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class CallerRunsTest {

    /** An executor whose threads have not started anything yet: the tasks wait here until {@link #runAll}. */
    private static final class Held implements Executor {
        final List<Runnable> tasks = new ArrayList<>();

        @Override
        public void execute(Runnable task) {
            tasks.add(task);
        }

        void runAll() {
            tasks.forEach(Runnable::run);
            tasks.clear();
        }
    }

    private static final long HELP_AT_LEAST = TimeUnit.SECONDS.toNanos(10);

    @Test
    void aBlockedCallerRunsTheCallItselfAndTheIssuersThreadThenSkipsIt() throws Exception {
        Held threads = new Held();
        CallerRuns runs = new CallerRuns(threads, 2, HELP_AT_LEAST);
        CallerRuns.Answer<String> answer = runs.answer();
        AtomicInteger ran = new AtomicInteger();
        AtomicReference<Thread> on = new AtomicReference<>();
        runs.submit(answer, () -> {
            ran.incrementAndGet();
            on.set(Thread.currentThread());
            answer.complete("granted");
        });

        assertThat(answer.get()).isEqualTo("granted");
        assertThat(on.get()).isSameAs(Thread.currentThread());
        threads.runAll();
        assertThat(ran).hasValue(1);
    }

    @Test
    void aCallerBlockedOnADependentRunsItToo() throws Exception {
        Held threads = new Held();
        CallerRuns runs = new CallerRuns(threads, 2, HELP_AT_LEAST);
        CallerRuns.Answer<Integer> answer = runs.answer();
        runs.submit(answer, () -> answer.complete(20));

        CompletableFuture<Integer> dependent = answer.thenApply(n -> n + 1).toCompletableFuture();
        assertThat(dependent.join()).isEqualTo(21);
        assertThat(dependent.get(1, TimeUnit.MINUTES)).isEqualTo(21);
    }

    @Test
    void aShortWaitIsTheCallersOwnAndRunsNothing() throws Exception {
        Held threads = new Held();
        CallerRuns runs = new CallerRuns(threads, 2, HELP_AT_LEAST);
        CallerRuns.Answer<String> answer = runs.answer();
        runs.submit(answer, () -> answer.complete("granted"));

        assertThatThrownBy(() -> answer.get(20, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        threads.runAll();
        assertThat(answer.get(20, TimeUnit.MILLISECONDS)).isEqualTo("granted");
    }

    @Test
    void callersRunNoMoreCallsAtOnceThanTheIssuersPoolHasSlots() throws Exception {
        Held threads = new Held();
        CallerRuns runs = new CallerRuns(threads, 1, TimeUnit.MILLISECONDS.toNanos(1));
        CallerRuns.Answer<String> inner = runs.answer();
        runs.submit(inner, () -> inner.complete("inner"));
        CallerRuns.Answer<String> outer = runs.answer();
        AtomicReference<Boolean> innerDoneInside = new AtomicReference<>();
        // The one slot is taken by the outer call while it runs: a caller blocked inside it on another
        // call leaves that call to the issuer's threads.
        runs.submit(outer, () -> {
            try {
                innerDoneInside.set(inner.isDone());
                assertThatThrownBy(() -> inner.get(50, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
            } catch (Throwable t) {
                outer.completeExceptionally(t);
                return;
            }
            outer.complete("outer");
        });
        assertThat(outer.get(1, TimeUnit.MINUTES)).isEqualTo("outer");
        assertThat(innerDoneInside.get()).isFalse();
        threads.runAll();
        assertThat(inner.join()).isEqualTo("inner");
    }

    @Test
    void anInterruptedCallerRunsNothingAndIsAnsweredByItsInterrupt() {
        Held threads = new Held();
        CallerRuns runs = new CallerRuns(threads, 2, HELP_AT_LEAST);
        CallerRuns.Answer<String> answer = runs.answer();
        AtomicInteger ran = new AtomicInteger();
        runs.submit(answer, () -> {
            ran.incrementAndGet();
            answer.complete("granted");
        });
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(answer::get).isInstanceOf(InterruptedException.class);
        } finally {
            Thread.interrupted();
        }
        assertThat(ran).hasValue(0);
        threads.runAll();
        assertThat(answer.join()).isEqualTo("granted");
    }

    @Test
    void aCallRefusedByAClosedIssuerIsRunByNobody() {
        CallerRuns runs = new CallerRuns(task -> {
            throw new RejectedExecutionException("closed");
        }, 2, HELP_AT_LEAST);
        CallerRuns.Answer<String> answer = runs.answer();
        AtomicInteger ran = new AtomicInteger();
        assertThatThrownBy(() -> runs.submit(answer, ran::incrementAndGet)).isInstanceOf(RejectedExecutionException.class);
        answer.completeExceptionally(new IllegalStateException("closed"));
        assertThatThrownBy(answer::join).hasRootCauseMessage("closed");
        assertThat(ran).hasValue(0);
    }
}
