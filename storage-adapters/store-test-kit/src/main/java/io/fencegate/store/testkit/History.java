package io.fencegate.store.testkit;

import static io.fencegate.store.testkit.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.store.Applied;
import io.fencegate.store.Found;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.Stale;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The answers of concurrent writes to one key, checked against a serial order. Tokens only
 * rise, so the applied writes, sorted by token, must form a chain: each one's previous token is
 * the token of the applied write before it (0 for the first). A lower token that overwrote a
 * higher one would break the chain; so would two writers both believing they created the item.
 */
final class History {

    private final List<Outcome> outcomes;

    private History(List<Outcome> outcomes) {
        this.outcomes = outcomes;
    }

    static History of(List<Outcome> outcomes) {
        return new History(outcomes);
    }

    void assertSerialAndEndsAtMax(GuardedStore store, String key, long maxToken) {
        List<Outcome> applied = outcomes.stream()
                .filter(o -> o.result() instanceof Applied)
                .sorted(Comparator.comparingLong(Outcome::token))
                .toList();
        assertThat(applied).as("applied writes of %s", key).isNotEmpty();
        long previous = 0;
        for (Outcome o : applied) {
            assertThat(o.token()).as("two writes applied with one token on %s: %s", key, applied).isGreaterThan(previous);
            assertThat(((Applied) o.result()).previousToken())
                    .as("previous token of %s's write with %d (history %s)", key, o.token(), applied)
                    .isEqualTo(previous);
            previous = o.token();
        }
        assertThat(previous).as("the highest token always applies").isEqualTo(maxToken);
        Set<Long> appliedTokens = applied.stream().map(Outcome::token).collect(Collectors.toSet());
        for (Outcome o : outcomes) {
            if (o.result() instanceof Stale stale) {
                assertThat(stale.attemptedToken()).isEqualTo(o.token());
                assertThat(stale.currentToken()).as("a stale answer names a token that applied").isIn(appliedTokens);
                assertThat(stale.currentToken()).isGreaterThanOrEqualTo(o.token());
                assertThat(stale.fence()).isGreaterThanOrEqualTo(stale.currentToken());
            }
        }
        Found end = (Found) await(store.read(key));
        assertThat(end.token()).isEqualTo(maxToken);
        assertThat(end.fence()).isEqualTo(maxToken);
        assertThat(end.value()).isEqualTo(AbstractGuardedStoreContractTest.valueFor(maxToken));
    }
}
