package io.fencegate.store.backend;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.store.StoreLimits;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class GuardInputsTest {

    private final StoreLimits limits = new StoreLimits(8, 4);

    @Test
    void refusedInputFailsTheStageAndNeverStartsTheOperation() {
        AtomicBoolean started = new AtomicBoolean();
        CompletionStage<String> stage = GuardInputs.checked(() -> limits.checkWrite("k", 0, new byte[1]), () -> {
            started.set(true);
            return CompletableFuture.completedFuture("ran");
        });
        assertThat(stage.toCompletableFuture()).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                .havingCause().isInstanceOf(IllegalArgumentException.class).withMessageContaining("token must be positive");
        assertThat(started).isFalse();
    }

    @Test
    void eachWriteCheckRefusesItsOwnInput() {
        assertRefused(() -> limits.checkWrite("../x", 1, new byte[1]), "'..' segment");
        assertRefused(() -> limits.checkWrite("k", 1, new byte[5]), "over the limit");
        assertRefused(() -> limits.checkWrite("k", 1, null), "value is null");
        assertRefused(() -> limits.checkGuarded("123456789", 1), "longer than 8 bytes");
        assertRefused(() -> limits.checkGuarded("k", -1), "token must be positive");
    }

    @Test
    void acceptedInputRunsTheOperationWithWhatTheCheckPrepared() {
        CompletionStage<Integer> stage = GuardInputs.checked(() -> {
            limits.checkGuarded("k", 1);
            return 41;
        }, prepared -> CompletableFuture.completedFuture(prepared + 1));
        assertThat(stage.toCompletableFuture().join()).isEqualTo(42);
    }

    private static void assertRefused(Runnable check, String message) {
        CompletionStage<Object> stage = GuardInputs.checked(check, () -> CompletableFuture.completedFuture("ran"));
        assertThat(stage.toCompletableFuture()).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                .havingCause().isInstanceOf(IllegalArgumentException.class).withMessageContaining(message);
    }
}
