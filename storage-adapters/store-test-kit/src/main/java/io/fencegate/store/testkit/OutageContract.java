package io.fencegate.store.testkit;

import static io.fencegate.store.testkit.Stages.await;
import static io.fencegate.store.testkit.Stages.failureOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.store.Applied;
import io.fencegate.store.Found;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.StoreUnavailableException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** The store contract, outage: a backend cut off mid-run fails fast, half-applies nothing and recovers. */
public abstract class OutageContract extends ConcurrencyContract {
    @Test
    void backendOutageFailsFastWithStoreUnavailableAndRecoversAfterRestore() throws Exception {
        OutageHarness.Outage outage = closeAfter(outageHarness().open(GuardRule.STRICT));
        GuardedStore cutOff = outage.store();
        GuardedStore direct = outage.witness() != null ? outage.witness() : store(GuardRule.STRICT);
        String k = key("outage");
        long token = 1;
        assertThat(await(cutOff.write(k, token, valueFor(token)))).isEqualTo(new Applied(0));
        List<Long> mayHaveApplied = new ArrayList<>(List.of(token));
        for (int i = 0; i < 5; i++) {
            token++;
            assertThat(await(cutOff.write(k, token, valueFor(token)))).isInstanceOf(Applied.class);
            mayHaveApplied.add(token);
        }
        // A writer keeps going while the link is cut under it.
        ExecutorService background = Executors.newSingleThreadExecutor();
        long cutAtToken = token;
        Future<List<Long>> midRun = background.submit(() -> {
            List<Long> attempted = new ArrayList<>();
            for (long t = cutAtToken + 1; t <= cutAtToken + 200; t++) {
                attempted.add(t);
                try {
                    await(cutOff.write(k, t, valueFor(t)));
                } catch (StoreUnavailableException expected) {
                    break;
                }
            }
            return attempted;
        });
        Thread.sleep(30);
        outage.cut();
        List<Long> attempted = midRun.get(outageFailureBound().toSeconds() * 3, TimeUnit.SECONDS);
        background.shutdownNow();
        mayHaveApplied.addAll(attempted);
        token = attempted.isEmpty() ? token : attempted.get(attempted.size() - 1);

        for (int i = 0; i < 3; i++) {
            long t = ++token;
            mayHaveApplied.add(t);
            long started = System.nanoTime();
            Throwable failure = failureOf(() -> cutOff.write(k, t, valueFor(t)));
            assertThat(failure).isInstanceOf(StoreUnavailableException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(outageFailureBound());
        }
        long started = System.nanoTime();
        assertThat(failureOf(() -> cutOff.read(k))).isInstanceOf(StoreUnavailableException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(outageFailureBound());

        // Nothing half-applied: the item's content always belongs to its token.
        Found during = (Found) await(direct.read(k));
        assertThat(during.value()).isEqualTo(valueFor(during.token()));
        assertThat(mayHaveApplied).contains(during.token());

        outage.restore();
        long next = token + 1;
        Awaitility.await().atMost(Duration.ofSeconds(45)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                .until(() -> await(cutOff.write(k, next, valueFor(next))) instanceof Applied
                        || await(cutOff.read(k)) instanceof Found f && f.token() == next);
        assertFound(await(direct.read(k)), new String(valueFor(next), StandardCharsets.UTF_8), next, next);
    }
}
