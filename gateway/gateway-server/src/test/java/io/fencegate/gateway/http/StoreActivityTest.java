package io.fencegate.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.gateway.metrics.GatewayMetrics;
import io.fencegate.gateway.metrics.GatewayMetrics.ReadOutcome;
import io.fencegate.gateway.metrics.GatewayMetrics.WriteOutcome;
import io.fencegate.store.Stale;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The status page's counts: each outcome under its store, and every report passed on to the metrics. */
class StoreActivityTest {

    @Test
    void eachOutcomeIsCountedUnderItsStoreAndPassedOnToTheMetrics() {
        GatewayMetrics prometheus = GatewayMetrics.prometheus();
        StoreActivity activity = new StoreActivity(prometheus);
        activity.write("shop", WriteOutcome.APPLIED);
        activity.write("shop", WriteOutcome.APPLIED);
        activity.writeStale("shop", "stock", new Stale(7, 7, 5));
        activity.write("files", WriteOutcome.REFUSED);
        activity.fencedRead("shop", ReadOutcome.CLAIMED);
        activity.fencedRead("shop", ReadOutcome.STALE);
        activity.fencedRead("files", ReadOutcome.REFUSED);

        assertThat(activity.counts(List.of("shop", "files", "idle"), name -> true)).isEqualTo(new JsonObject("""
                {"shop":  {"writes": {"applied": 2, "stale": 1, "refused": 0},
                           "fencedReads": {"claimed": 1, "stale": 1, "refused": 0}},
                 "files": {"writes": {"applied": 0, "stale": 0, "refused": 1},
                           "fencedReads": {"claimed": 0, "stale": 0, "refused": 1}},
                 "idle":  {"writes": {"applied": 0, "stale": 0, "refused": 0},
                           "fencedReads": {"claimed": 0, "stale": 0, "refused": 0}}}"""));
        assertThat(activity.counts(List.of("shop", "files"), "files"::equals).fieldNames()).containsExactly("files");
        assertThat(activity.refusals(name -> true)).hasSize(1);
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
}
