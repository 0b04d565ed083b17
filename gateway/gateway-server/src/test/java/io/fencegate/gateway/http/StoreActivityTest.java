package io.fencegate.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.gateway.StoreBinding;
import io.fencegate.gateway.auth.ApiKey;
import io.fencegate.gateway.auth.ApiKeyHasher;
import io.fencegate.gateway.auth.Principal;
import io.fencegate.gateway.it.MemoryStoreProvider;
import io.fencegate.gateway.metrics.GatewayMetrics;
import io.fencegate.gateway.metrics.GatewayMetrics.ReadOutcome;
import io.fencegate.gateway.metrics.GatewayMetrics.WriteOutcome;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.Stale;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The status page's counts and refusals: each outcome under its store, every report passed on to
 * the metrics, and a viewer shown what its API key may use on {@code /v1}, no more.
 */
class StoreActivityTest {
    private static final Principal ALICE = key("alice", List.of("main"), List.of("main/alice/"));
    private static final Principal BOB = key("bob", List.of("main"), List.of("main/bob/"));

    private static Principal key(String name, List<String> stores, List<String> lockPrefixes) {
        return Principal.of(new ApiKey(name, ApiKeyHasher.sha256Hex(ApiKeyHasher.newKey()), stores, lockPrefixes));
    }

    private static GuardedStore store() {
        return new MemoryStoreProvider().open(new MemoryStoreProvider.MemorySettings(null, null, null), null).store();
    }

    private static StoreBinding binding(String name) {
        return StoreBinding.of(name, store());
    }

    @Test
    void eachOutcomeIsCountedUnderItsStoreAndPassedOnToTheMetrics() {
        GatewayMetrics prometheus = GatewayMetrics.prometheus();
        StoreActivity activity = new StoreActivity(prometheus, List.of(binding("shop"), binding("files"), binding("idle")));
        activity.write("shop", WriteOutcome.APPLIED);
        activity.write("shop", WriteOutcome.APPLIED);
        activity.writeStale("shop", "stock", new Stale(7, 7, 5));
        activity.write("files", WriteOutcome.REFUSED);
        activity.fencedRead("shop", ReadOutcome.CLAIMED);
        activity.fencedRead("shop", ReadOutcome.STALE);
        activity.fencedRead("files", ReadOutcome.REFUSED);

        assertThat(activity.counts(Principal.ANONYMOUS)).isEqualTo(new JsonObject("""
                {"shop":  {"writes": {"applied": 2, "stale": 1, "refused": 0, "retried": 0},
                           "fencedReads": {"claimed": 1, "stale": 1, "refused": 0}},
                 "files": {"writes": {"applied": 0, "stale": 0, "refused": 1, "retried": 0},
                           "fencedReads": {"claimed": 0, "stale": 0, "refused": 1}},
                 "idle":  {"writes": {"applied": 0, "stale": 0, "refused": 0, "retried": 0},
                           "fencedReads": {"claimed": 0, "stale": 0, "refused": 0}}}"""));
        assertThat(activity.counts(key("files-only", List.of("files"), List.of("*"))).fieldNames())
                .containsExactly("files");
        assertThat(activity.refusals(Principal.ANONYMOUS)).hasSize(1);
        assertThat(prometheus.scrape())
                .contains("fencegate_writes_total{outcome=\"applied\",store=\"shop\"} 2.0")
                .contains("fencegate_writes_total{outcome=\"stale\",store=\"shop\"} 1.0")
                .contains("fencegate_writes_total{outcome=\"refused\",store=\"files\"} 1.0")
                .contains("fencegate_fenced_reads_total{outcome=\"claimed\",store=\"shop\"} 1.0")
                .contains("fencegate_fenced_reads_total{outcome=\"stale\",store=\"shop\"} 1.0")
                .contains("fencegate_fenced_reads_total{outcome=\"refused\",store=\"files\"} 1.0")
                // Series exist only for what happened.
                .doesNotContain("outcome=\"refused\",store=\"shop\"");
    }

    /**
     * A 409 whose current token is the attempted one is a retry of an applied write (strict: one
     * write per token), not a stale holder kept out: counted as retried, on the page and in
     * /metrics alike, and not listed among the refusals.
     */
    @Test
    void aSameTokenRetryIsCountedAsRetriedNotStaleOnThePageAndInMetrics() {
        GatewayMetrics prometheus = GatewayMetrics.prometheus();
        StoreActivity activity = new StoreActivity(prometheus, List.of(binding("shop")));
        activity.write("shop", WriteOutcome.APPLIED);
        activity.writeStale("shop", "stock", new Stale(9, 9, 9)); // the same token again
        activity.writeStale("shop", "stock", new Stale(9, 9, 9));
        activity.writeStale("shop", "stock", new Stale(9, 9, 8)); // a stale holder

        assertThat(activity.counts(Principal.ANONYMOUS).getJsonObject("shop").getJsonObject("writes"))
                .isEqualTo(new JsonObject("{\"applied\": 1, \"stale\": 1, \"refused\": 0, \"retried\": 2}"));
        assertThat(activity.refusals(Principal.ANONYMOUS)).hasSize(1);
        assertThat(prometheus.scrape())
                .contains("fencegate_writes_total{outcome=\"retried\",store=\"shop\"} 2.0")
                .contains("fencegate_writes_total{outcome=\"stale\",store=\"shop\"} 1.0");
    }

    @Test
    void aRefusalIsShownOnlyToKeysThatMayUseItsItem() {
        StoreActivity activity = new StoreActivity(GatewayMetrics.noop(), List.of(binding("main"), binding("files")));
        activity.writeStale("main", "bob/payroll-1", new Stale(17, 17, 11));
        activity.writeStale("main", "alice/notes", new Stale(26, 26, 18));
        activity.writeStale("files", "alice/notes", new Stale(30, 30, 29));

        assertThat(keys(activity.refusals(ALICE))).containsExactly("main alice/notes");
        assertThat(keys(activity.refusals(BOB))).containsExactly("main bob/payroll-1");
        assertThat(keys(activity.refusals(Principal.ANONYMOUS)))
                .containsExactly("files alice/notes", "main alice/notes", "main bob/payroll-1");
        // Every lock, but not the store: /v1 refuses it the store, so the page shows it nothing of it.
        assertThat(keys(activity.refusals(key("files-only", List.of("files"), List.of("*")))))
                .containsExactly("files alice/notes");
        assertThat(activity.refusals(ALICE).getJsonObject(0).fieldNames())
                .containsExactlyInAnyOrder("store", "key", "attemptedToken", "currentToken", "fence", "at");
    }

    @Test
    void aRefusalIsJudgedByTheLockOfTheWholeKeyNotTheShortenedOneShown() {
        StoreActivity activity = new StoreActivity(GatewayMetrics.noop(), List.of(binding("main")));
        String shared = "shared/" + "x".repeat(100);
        Principal deep = key("deep", List.of("main"), List.of("main/" + shared + "/deep/"));
        activity.writeStale("main", shared + "/other/item", new Stale(5, 5, 4));
        activity.writeStale("main", shared + "/deep/item", new Stale(7, 7, 6));

        JsonArray shown = activity.refusals(deep);
        assertThat(shown).hasSize(1);
        assertThat(shown.getJsonObject(0).getLong("attemptedToken")).isEqualTo(6);
        assertThat(shown.getJsonObject(0).getString("key")).endsWith("…");
    }

    @Test
    void storeCountsAreShownOnlyToKeysThatMayUseEveryItemOfTheStore() {
        StoreBinding inventory = new StoreBinding("inventory", store(), null, Map.of(), "inventory-lock");
        StoreActivity activity = new StoreActivity(GatewayMetrics.noop(), List.of(binding("main"), inventory));
        activity.writeStale("main", "bob/payroll-1", new Stale(17, 17, 11));
        activity.write("inventory", WriteOutcome.APPLIED);

        JsonObject partial = new JsonObject().put("partial", true);
        assertThat(activity.counts(ALICE)).as("main's counts hold bob's refusal")
                .isEqualTo(new JsonObject().put("main", partial));
        JsonObject mainOwner = activity.counts(key("owner", List.of("main", "inventory"), List.of("main/", "inventory-")));
        assertThat(mainOwner.getJsonObject("main").getJsonObject("writes").getLong("stale")).isEqualTo(1);
        assertThat(mainOwner.getJsonObject("inventory").getJsonObject("writes").getLong("applied"))
                .as("one lock guards every item of inventory, and the key covers it").isEqualTo(1);
        assertThat(activity.counts(key("stock", List.of("inventory"), List.of("inventory-lock/"))))
                .as("a prefix longer than inventory's one lock covers none of its items")
                .isEqualTo(new JsonObject().put("inventory", partial));
    }

    private static List<String> keys(JsonArray refusals) {
        return refusals.stream().map(r -> ((JsonObject) r).getString("store") + " " + ((JsonObject) r).getString("key"))
                .toList();
    }
}
