package io.fencegate.check;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.FencegateException;
import io.fencegate.client.Lease;
import io.fencegate.client.LeaseMode;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * One client: runs its workload's steps until the deadline, spread over the gateways, and records
 * every call with the time it was sent, the time its answer came and the gateway that served it.
 *
 * <p>A gateway that did not answer (refused, reset, timed out) or answered 5xx is left alone for a
 * while, a jittered backoff that doubles from {@value #FIRST_BACKOFF_MS} ms up to
 * {@value #MAX_BACKOFF_MS} ms, while the other gateways are still called: hammering a restarting
 * gateway adds only failures to the history, and a flood of them per restart once hid the
 * operations that matter.
 */
final class ClientLoop implements Runnable {
    static final long FIRST_BACKOFF_MS = 50;
    static final long MAX_BACKOFF_MS = 2000;

    private final RunOptions options;
    private final Gateways gateways;
    private final History history;
    private final int id;
    private final long deadlineUs;
    private final BypassWriter bypass;
    private final Takeover takeover;
    private final SplittableRandom random;
    private final long[] backoffMs;
    private final long[] retryAtUs;
    private int round;
    private int sequence;

    ClientLoop(RunOptions options, Gateways gateways, History history, int id, long deadlineUs, BypassWriter bypass) {
        this(options, gateways, history, id, deadlineUs, bypass, new Takeover());
    }

    /** With the {@link Takeover} it shares with the process's other clients (the rw plain-reads control's schedule). */
    ClientLoop(RunOptions options, Gateways gateways, History history, int id, long deadlineUs, BypassWriter bypass,
            Takeover takeover) {
        this.options = options;
        this.takeover = takeover;
        this.gateways = gateways;
        this.history = history;
        this.id = id;
        this.deadlineUs = deadlineUs;
        this.bypass = bypass;
        this.random = new SplittableRandom(id * 7919L + System.nanoTime());
        this.backoffMs = new long[gateways.size()];
        this.retryAtUs = new long[gateways.size()];
    }

    @Override
    public void run() {
        try {
            while (Clock.nowUs() < deadlineUs && !Thread.currentThread().isInterrupted()) {
                Gateways.Gateway gw = nextGateway();
                if (gw != null) {
                    options.workload().step(this, gw);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The next gateway in turn that is not backed off; null after sleeping if every one is. */
    private Gateways.Gateway nextGateway() throws InterruptedException {
        long now = Clock.nowUs();
        long earliest = Long.MAX_VALUE;
        for (int k = 0; k < gateways.size(); k++) {
            int g = (round + k) % gateways.size();
            if (retryAtUs[g] <= now) {
                round = g + 1;
                return gateways.get(g);
            }
            earliest = Math.min(earliest, retryAtUs[g]);
        }
        long sleepUs = Math.min(earliest, deadlineUs) - now;
        if (sleepUs > 0) {
            Thread.sleep(sleepUs / 1000, (int) (sleepUs % 1000) * 1000);
        }
        return null;
    }

    RunOptions options() {
        return options;
    }

    int id() {
        return id;
    }

    /** When the run ends (epoch microseconds). */
    long deadlineUs() {
        return deadlineUs;
    }

    BypassWriter bypass() {
        return bypass;
    }

    Takeover takeover() {
        return takeover;
    }

    /** This client's next number, 1 up (the lock-set's elements). */
    int nextSequence() {
        return ++sequence;
    }

    /** The lock guarding an item is {store}/{key}; the mutex workload uses the same shape. Null if not granted. */
    Lease acquire(Gateways.Gateway gw, String key) {
        return acquire(gw, key, LeaseMode.WRITE);
    }

    /** {@link #acquire(Gateways.Gateway, String)} in {@code mode}: a read lease is recorded with mode {@code read}. */
    Lease acquire(Gateways.Gateway gw, String key, LeaseMode mode) {
        return acquiring(gw, key, mode, 0);
    }

    /**
     * One of the {@code permits} permits of the semaphore {store}/{key}, recorded on {@code key} with
     * the slot it took; the permit guards the items {key}/{slot}. Null if none was free.
     */
    Lease acquirePermit(Gateways.Gateway gw, String key, int permits) {
        return acquiring(gw, key, LeaseMode.WRITE, permits);
    }

    private Lease acquiring(Gateways.Gateway gw, String key, LeaseMode mode, int permits) {
        String lock = options.store() + "/" + key;
        String ttl = Long.toString(options.ttlMs());
        Duration ttlD = Duration.ofMillis(options.ttlMs());
        Duration wait = Duration.ofMillis(2 * options.ttlMs());
        String modeRecorded = mode == LeaseMode.READ ? Op.READ_MODE : null;
        Integer permitsRecorded = permits > 0 ? permits : null;
        FencegateClient c = gw.client();
        long t0 = Clock.nowUs();
        try {
            Optional<Lease> lease = permits > 0 ? c.acquirePermit(lock, asked(permits), ttlD, wait) : c.acquire(lock, mode, ttlD, wait);
            answered(gw);
            Integer slot = lease.filter(Lease::isPermit).map(Lease::slot).orElse(null);
            add(new Op(id, Op.ACQUIRE, key, lease.map(Lease::token).orElse(0L), ttl, 0, t0, Clock.nowUs(),
                    lease.isPresent() ? Outcome.OK : Outcome.FAIL, lease.isPresent() ? "" : "423 held", gw.url())
                    .withLease(modeRecorded, slot, permitsRecorded));
            return lease.orElse(null);
        } catch (RuntimeException e) {
            add(new Op(id, Op.ACQUIRE, key, 0, ttl, 0, t0, Clock.nowUs(), failure(e), describe(e), gw.url())
                    .withLease(modeRecorded, null, permitsRecorded));
            backOff(gw, c, e);
            return null;
        }
    }

    /**
     * The permits asked of the issuer for a semaphore of {@code permits}: one more for the over-grant
     * control, whose grants are still recorded (and judged) as of {@code permits}. A semaphore of N+1
     * is, to the checker, an issuer that hands out one permit too many.
     */
    private int asked(int permits) {
        return options.control() == Control.OVER_GRANT ? permits + 1 : permits;
    }

    /**
     * Renews {@code lease}, recorded with the ttl it asks for again. A holder that paused past its ttl
     * finds its lease gone (410): an issuer that extended it anyway let an expired lease live on.
     */
    void renew(Gateways.Gateway gw, String key, Lease lease) {
        FencegateClient c = gw.client();
        String ttl = Long.toString(options.ttlMs());
        long t0 = Clock.nowUs();
        try {
            boolean renewed = c.renew(lease.leaseId()).isPresent();
            answered(gw);
            add(shaped(new Op(id, Op.RENEW, key, lease.token(), ttl, 0, t0, Clock.nowUs(), renewed ? Outcome.OK : Outcome.FAIL,
                    renewed ? "" : "410 gone", gw.url()), lease));
        } catch (RuntimeException e) {
            add(shaped(new Op(id, Op.RENEW, key, lease.token(), ttl, 0, t0, Clock.nowUs(), failure(e), describe(e), gw.url()), lease));
            backOff(gw, c, e);
        }
    }

    void release(Gateways.Gateway gw, String key, Lease lease) {
        FencegateClient c = gw.client();
        long t0 = Clock.nowUs();
        try {
            boolean released = c.release(lease.leaseId());
            answered(gw);
            add(shaped(new Op(id, Op.RELEASE, key, lease.token(), null, 0, t0, Clock.nowUs(),
                    released ? Outcome.OK : Outcome.FAIL, released ? "" : "410 gone", gw.url()), lease));
        } catch (RuntimeException e) {
            add(shaped(new Op(id, Op.RELEASE, key, lease.token(), null, 0, t0, Clock.nowUs(), failure(e), describe(e), gw.url()), lease));
            backOff(gw, c, e);
        }
    }

    /** {@code op} of {@code lease}: with its mode if it is a read lease, its slot if it is a permit (so its checker can pair them). */
    private static Op shaped(Op op, Lease lease) {
        return op.withLease(lease.mode() == LeaseMode.READ ? Op.READ_MODE : null, lease.isPermit() ? lease.slot() : null, null);
    }

    private void add(Op op) {
        history.add(op);
    }

    /** Mostly a short think; sometimes a pause past the ttl, the holder that wakes up stale. */
    void pauseOrThink() throws InterruptedException {
        long ttl = options.ttlMs();
        if (random.nextDouble() < options.pauseChance()) {
            Thread.sleep(ttl + random.nextLong(ttl));
        } else if (options.thinkMs() > 0) {
            Thread.sleep(random.nextLong(options.thinkMs() + 1));
        }
    }

    double nextDouble() {
        return random.nextDouble();
    }

    int nextInt(int bound) {
        return random.nextInt(bound);
    }

    void record(Gateways.Gateway gw, String f, String key, long token, String value, long prior, long t0, Outcome outcome, String note) {
        history.add(new Op(id, f, key, token, value, prior, t0, Clock.nowUs(), outcome, note, gw.url()));
    }

    /** Records an operation on several items at once ({@code items}: each one's token, value and prior), named {@code key}. */
    void record(Gateways.Gateway gw, String f, String key, String value, Map<String, Op.Item> items, long t0, Outcome outcome,
            String note) {
        history.add(new Op(id, f, key, 0, value, 0, t0, Clock.nowUs(), outcome, note, gw.url(), items));
    }

    /** The gateway answered (any status below 500): it is up, call it as usual. */
    void answered(Gateways.Gateway gw) {
        backoffMs[gw.index()] = 0;
        retryAtUs[gw.index()] = 0;
    }

    /**
     * Records a call on {@code used} that ended with {@code e}, and what it says about the gateway:
     * anything but a 4xx backs off from it, and a broken link drops its pooled connections.
     */
    void failed(Gateways.Gateway gw, FencegateClient used, String f, String key, long token, String value, long t0, Exception e) {
        record(gw, f, key, token, value, 0, t0, failure(e), describe(e));
        backOff(gw, used, e);
    }

    /** {@link #failed} for an operation on several items at once. */
    void failed(Gateways.Gateway gw, FencegateClient used, String f, String key, String value, Map<String, Op.Item> items, long t0,
            Exception e) {
        record(gw, f, key, value, items, t0, failure(e), describe(e));
        backOff(gw, used, e);
    }

    private void backOff(Gateways.Gateway gw, FencegateClient used, Exception e) {
        if (e instanceof FencegateException fe && fe.status() < 500) {
            answered(gw);
            return;
        }
        if (linkBroken(e)) {
            gw.dropConnections(used);
        }
        int g = gw.index();
        backoffMs[g] = backoffMs[g] == 0 ? FIRST_BACKOFF_MS : Math.min(MAX_BACKOFF_MS, backoffMs[g] * 2);
        long jitterMs = backoffMs[g] / 2 + random.nextLong(backoffMs[g] / 2 + 1); // between half and all of it
        retryAtUs[g] = Clock.nowUs() + jitterMs * 1000;
    }

    /**
     * A 4xx is a refusal, and a connection that was never made (refused, or its connect timed out)
     * carried no request: nothing happened. Anything else (5xx, timeout, broken link) may have applied.
     */
    static Outcome failure(Exception e) {
        if (e instanceof FencegateException fe) {
            return fe.status() >= 400 && fe.status() < 500 ? Outcome.FAIL : Outcome.UNKNOWN;
        }
        return neverSent(e) ? Outcome.FAIL : Outcome.UNKNOWN;
    }

    /** No connection was made, so no request was sent: refused, or the connect timed out. */
    static boolean neverSent(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ConnectException || t instanceof HttpConnectTimeoutException) {
                return true;
            }
        }
        return false;
    }

    /**
     * The transport failed other than by the call's own timeout (refused, reset, closed without an
     * answer): the gateway went away, and the connections kept alive to it went with it.
     */
    static boolean linkBroken(Exception e) {
        if (e instanceof FencegateException) {
            return false;
        }
        if (neverSent(e)) {
            return true;
        }
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof HttpTimeoutException) {
                return false;
            }
        }
        return true;
    }

    static String describe(Exception e) {
        if (e instanceof FencegateException fe) {
            return fe.status() + " " + fe.type();
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
    }
}
