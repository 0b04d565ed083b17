package io.fencegate.gateway.http;

import io.fencegate.gateway.metrics.GatewayMetrics;
import io.fencegate.store.Stale;
import io.vertx.core.Handler;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

/**
 * What the status page shows of the stores: this gateway's write and fenced-read outcomes per
 * store, and its latest stale-write refusals (the moments fencing kept a stale holder's write
 * out). A decorator of the gateway's metrics, so the routes report once and both hear it; counts
 * are this gateway's since it started, like the Prometheus counters.
 */
final class StoreActivity implements GatewayMetrics {
    /** Where a route leaves the item's key for {@link #writeStale(String, String, Stale)}. */
    static final String KEY = "fencegate.key";
    /** Refusals kept; the page shows the newest. */
    static final int REFUSALS_KEPT = 20;

    private final GatewayMetrics delegate;
    private final Map<String, Counts> stores = new ConcurrentHashMap<>();
    private final Deque<JsonObject> refusals = new ArrayDeque<>();

    private static final class Counts {
        final LongAdder applied = new LongAdder();
        final LongAdder stale = new LongAdder();
        final LongAdder refused = new LongAdder();
        final LongAdder readClaimed = new LongAdder();
        final LongAdder readStale = new LongAdder();
        final LongAdder readRefused = new LongAdder();
    }

    StoreActivity(GatewayMetrics delegate) {
        this.delegate = delegate;
    }

    private Counts of(String store) {
        return stores.computeIfAbsent(store, s -> new Counts());
    }

    /** Per store (those {@code visible} lets through): {@code {"writes":{applied,stale,refused},"fencedReads":{claimed,stale,refused}}}. */
    JsonObject counts(Iterable<String> names, Predicate<String> visible) {
        JsonObject out = new JsonObject();
        for (String name : names) {
            if (!visible.test(name)) {
                continue;
            }
            Counts c = of(name);
            out.put(name, new JsonObject()
                    .put("writes", new JsonObject().put("applied", c.applied.sum()).put("stale", c.stale.sum())
                            .put("refused", c.refused.sum()))
                    .put("fencedReads", new JsonObject().put("claimed", c.readClaimed.sum())
                            .put("stale", c.readStale.sum()).put("refused", c.readRefused.sum())));
        }
        return out;
    }

    /** The newest refusals first, of the stores {@code visible} lets through. */
    JsonArray refusals(Predicate<String> visible) {
        JsonArray out = new JsonArray();
        synchronized (refusals) {
            for (JsonObject r : refusals) {
                if (visible.test(r.getString("store"))) {
                    out.add(r.copy());
                }
            }
        }
        return out;
    }

    @Override
    public void writeStale(String store, String key, Stale stale) {
        writeStale(store);
        if (stale.alreadyApplied()) {
            return; // a retry of an applied write: nothing was saved from anything
        }
        JsonObject refusal = new JsonObject().put("store", store).put("key", key == null ? "" : PathDecoder.shorten(key))
                .put("attemptedToken", stale.attemptedToken()).put("currentToken", stale.currentToken())
                .put("fence", stale.fence()).put("at", System.currentTimeMillis());
        synchronized (refusals) {
            refusals.addFirst(refusal);
            if (refusals.size() > REFUSALS_KEPT) {
                refusals.removeLast();
            }
        }
    }

    @Override
    public void writeApplied(String store) {
        of(store).applied.increment();
        delegate.writeApplied(store);
    }

    @Override
    public void writeStale(String store) {
        of(store).stale.increment();
        delegate.writeStale(store);
    }

    @Override
    public void writeRefused(String store) {
        of(store).refused.increment();
        delegate.writeRefused(store);
    }

    @Override
    public void fencedReadClaimed(String store) {
        of(store).readClaimed.increment();
        delegate.fencedReadClaimed(store);
    }

    @Override
    public void fencedReadStale(String store) {
        of(store).readStale.increment();
        delegate.fencedReadStale(store);
    }

    @Override
    public void fencedReadRefused(String store) {
        of(store).readRefused.increment();
        delegate.fencedReadRefused(store);
    }

    @Override
    public void leaseGranted() {
        delegate.leaseGranted();
    }

    @Override
    public void leaseDenied() {
        delegate.leaseDenied();
    }

    @Override
    public Handler<RoutingContext> timed(String route, Handler<RoutingContext> handler) {
        return delegate.timed(route, handler);
    }

    @Override
    public boolean enabled() {
        return delegate.enabled();
    }

    @Override
    public String scrape() {
        return delegate.scrape();
    }

    @Override
    public String contentType() {
        return delegate.contentType();
    }
}
