package io.fencegate.bench;

/**
 * A lock contender: each worker acquires and releases its own lock ({@code w0}, {@code w1}, …:
 * uncontended), or all workers share one ({@code contended}, so every operation waits its turn and
 * throughput is hand-offs per second).
 */
final class LockContender extends BlockingContender {

    /** Acquire {@code lock}, release it. */
    @FunctionalInterface
    interface AcquireRelease {
        void run(String lock) throws Exception;
    }

    private final AcquireRelease body;
    private final boolean contended;

    LockContender(String name, boolean contended, AcquireRelease body) {
        super(name);
        this.body = body;
        this.contended = contended;
    }

    LockContender onOneLock() {
        return new LockContender(name(), true, body);
    }

    @Override
    protected void op(int worker, int concurrency) throws Exception {
        body.run(contended ? "contended" : "w" + worker);
    }
}
