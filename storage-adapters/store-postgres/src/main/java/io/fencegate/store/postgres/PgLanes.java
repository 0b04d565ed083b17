package io.fencegate.store.postgres;

import io.fencegate.store.WriteCoalescer;
import io.vertx.core.Context;
import io.vertx.sqlclient.Pool;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.IntFunction;

/**
 * The store's connections cut into lanes, one per event loop that calls it (the Vert.x idiom of a
 * pool per event loop): a lane is a pool of its own and the coalescer that feeds it, and a thread
 * keeps its lane. A lane's batches are started on its loop (by a write arriving there, or by the
 * end of its previous batch, which completes there), its connections are created from that loop
 * (the pool connects on the event loop of whoever asks), so a request's statement, its answer and
 * the next batch stay on the request's own thread: no hand-off between event loops, which on a
 * busy machine means waiting for another thread to be scheduled.
 *
 * <p>Safety does not depend on lanes: two writes to one key from two loops run in two lanes, on
 * two connections, as two batches of one coalescer can; the guarded statement under the row lock
 * orders them, and every batch is sorted by key, so batches of different lanes lock rows in one
 * order and cannot deadlock each other.
 */
final class PgLanes implements AutoCloseable {

    /** One event loop's share: its pool and the coalescer whose batches run on it. */
    record Lane(Pool pool, WriteCoalescer writes) {}

    private final List<Lane> lanes;
    private final AtomicInteger nextForEventLoop = new AtomicInteger();
    private final AtomicInteger nextForOtherThread = new AtomicInteger();
    private final ThreadLocal<Lane> mine = new ThreadLocal<>();

    /**
     * {@code connections} split over {@code min(lanes, connections)} lanes as evenly as they go;
     * {@code pool} makes a lane's pool of the given size, {@code writes} its coalescer on that pool
     * with that many slots.
     */
    PgLanes(int lanes, int connections, IntFunction<Pool> pool, BiFunction<Pool, Integer, WriteCoalescer> writes) {
        int n = Math.min(lanes, connections);
        List<Lane> made = new ArrayList<>(n);
        try {
            for (int i = 0; i < n; i++) {
                int size = connections / n + (i < connections % n ? 1 : 0);
                Pool p = pool.apply(size);
                made.add(new Lane(p, writes.apply(p, size)));
            }
        } catch (RuntimeException e) {
            made.forEach(l -> l.pool().close());
            throw e;
        }
        this.lanes = List.copyOf(made);
    }

    /**
     * The calling thread's lane, assigned on its first call: event loops round robin among
     * themselves (so the gateway's loops get distinct lanes whatever other threads call first),
     * other threads round robin too, so a multi-threaded library caller uses every connection.
     */
    Lane current() {
        Lane lane = mine.get();
        if (lane == null) {
            AtomicInteger next = Context.isOnEventLoopThread() ? nextForEventLoop : nextForOtherThread;
            lane = lanes.get(Math.floorMod(next.getAndIncrement(), lanes.size()));
            mine.set(lane);
        }
        return lane;
    }

    /** Every lane, in order. */
    List<Lane> all() {
        return lanes;
    }

    @Override
    public void close() {
        lanes.forEach(l -> l.pool().close());
    }
}
