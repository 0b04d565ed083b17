package io.fencegate.store.testkit;

import static io.fencegate.store.testkit.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.store.Applied;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.WriteResult;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The store contract, claims: a backend belongs to one store name. */
public abstract class ClaimContract extends OutageContract {
    /**
     * Rows are keyed by the bare key while locks ({@code store/key}) and API-key scopes are per
     * store: two stores with different names on one database, schema or directory would write
     * each other's items under each other's locks. So a backend belongs to one store name, and
     * another name is refused when it opens, naming both stores; the same name opens again.
     */
    @Test
    void aStoreWithAnotherNameIsRefusedOnAClaimedBackendAndChangesNothing() throws Exception {
        GuardedStore owner = store(GuardRule.STRICT);
        String k = key("claimed");
        assertThat(await(owner.write(k, 5, bytes("owner's")))).isEqualTo(new Applied(0));
        String intruder = "intruder-" + UUID.randomUUID().toString().substring(0, 6);
        GuardedStore other;
        try {
            other = newStoreNamed(intruder, GuardRule.STRICT);
        } catch (RuntimeException refused) {
            assertThat(refused).hasMessageContaining("'" + intruder + "'")
                    .hasMessageContaining("'" + storeName() + "'");
            assertFound(await(owner.read(k)), "owner's", 5, 5);
            // The owner's name still opens (a restart, another gateway of a scale-out).
            GuardedStore again = closeAfter(newStoreNamed(storeName(), GuardRule.STRICT));
            assertFound(await(again.read(k)), "owner's", 5, 5);
            return;
        }
        closeAfter(other);
        WriteResult overwrite = await(other.write(k, 9, bytes("intruder's")));
        throw new AssertionError("store '" + intruder + "' opened on the backend of store '" + storeName()
                + "'; its write of " + k + " answered " + overwrite + " and the owner now reads " + await(owner.read(k)));
    }
}
