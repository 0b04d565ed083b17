package io.fencegate.check;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.FencegateException;
import io.fencegate.client.Lease;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.Stale;
import io.fencegate.client.WriteOutcome;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * One client: runs its workload's steps until the deadline and records every call, with the time
 * it was sent and the time its answer came.
 */
final class ClientLoop implements Runnable {
    /** A lock-set item is replaced by a fresh one this often, so its value stays small in long runs. */
    static final long SET_ROTATION_US = 60_000_000L;

    private final RunOptions options;
    private final List<FencegateClient> gateways;
    private final History history;
    private final int id;
    private final long deadlineUs;
    private final BypassWriter bypass;
    private final SplittableRandom random;
    private int round;
    private int added;

    ClientLoop(RunOptions options, List<FencegateClient> gateways, History history, int id, long deadlineUs, BypassWriter bypass) {
        this.options = options;
        this.gateways = gateways;
        this.history = history;
        this.id = id;
        this.deadlineUs = deadlineUs;
        this.bypass = bypass;
        this.random = new SplittableRandom(id * 7919L + System.nanoTime());
    }

    @Override
    public void run() {
        while (Clock.nowUs() < deadlineUs && !Thread.currentThread().isInterrupted()) {
            FencegateClient gw = gateways.get(round++ % gateways.size());
            try {
                switch (options.workload()) {
                    case COUNTER, LOCK_SET -> readModifyWrite(gw, itemKey());
                    case MUTEX -> mutex(gw, options.keyPrefix() + "/mutex-" + random.nextInt(options.keys()));
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    String itemKey() {
        String key = options.keyPrefix() + "/" + options.workload().label() + "-" + random.nextInt(options.keys());
        return options.workload() == Workload.LOCK_SET ? key + "-g" + Clock.nowUs() / SET_ROTATION_US : key;
    }

    private void readModifyWrite(FencegateClient gw, String key) throws InterruptedException {
        Lease lease = acquire(gw, key);
        if (lease == null) {
            return;
        }
        long token = lease.token();
        long t0 = Clock.nowUs();
        ReadOutcome read;
        try {
            read = options.control() == Control.PLAIN_READS ? gw.get(options.store(), key) : gw.get(options.store(), key, token);
        } catch (RuntimeException e) {
            record(Op.READ, key, token, null, 0, t0, failure(e), describe(e));
            release(gw, key, lease);
            return;
        }
        String current = read instanceof ReadOutcome.Value v ? new String(v.bytes(), StandardCharsets.UTF_8) : null;
        record(Op.READ, key, token, current, 0, t0, read instanceof Stale ? Outcome.FAIL : Outcome.OK,
                read instanceof Stale s ? "stale: item fenced at " + s.fence() : "");
        if (read instanceof Stale) {
            release(gw, key, lease);
            return;
        }
        pauseOrThink();
        String element = null;
        String next;
        if (options.workload() == Workload.COUNTER) {
            next = Long.toString(current == null ? 1 : Long.parseLong(current.trim()) + 1);
        } else {
            element = "c" + id + "-" + (++added);
            Set<String> set = Checker.elements(current);
            set.add(element);
            next = String.join(",", set);
        }
        String recorded = element != null ? element : next;
        byte[] bytes = next.getBytes(StandardCharsets.UTF_8);
        t0 = Clock.nowUs();
        try {
            if (options.control() == Control.BYPASS_GUARD) {
                long prior = bypass.write(key, token, bytes);
                record(Op.WRITE, key, token, recorded, prior, t0, Outcome.OK, "bypassed the guard");
            } else {
                WriteOutcome w = gw.put(options.store(), key, token, bytes);
                if (w instanceof WriteOutcome.Applied a) {
                    record(Op.WRITE, key, token, recorded, a.previousToken(), t0, Outcome.OK, "");
                } else if (w instanceof Stale s) {
                    record(Op.WRITE, key, token, recorded, 0, t0, Outcome.FAIL, "stale: token " + s.currentToken() + ", fence " + s.fence());
                }
            }
        } catch (Exception e) {
            record(Op.WRITE, key, token, recorded, 0, t0, failure(e), describe(e));
        }
        release(gw, key, lease);
    }

    private void mutex(FencegateClient gw, String lock) throws InterruptedException {
        Lease lease = acquire(gw, lock);
        if (lease != null) {
            pauseOrThink();
            release(gw, lock, lease);
        }
    }

    /** The lock guarding an item is {store}/{key}; the mutex workload uses the same shape. */
    private Lease acquire(FencegateClient gw, String key) throws InterruptedException {
        String lock = options.store() + "/" + key;
        long t0 = Clock.nowUs();
        try {
            Optional<Lease> lease = gw.acquire(lock, Duration.ofMillis(options.ttlMs()), Duration.ofMillis(2 * options.ttlMs()));
            record(Op.ACQUIRE, key, lease.map(Lease::token).orElse(0L), Long.toString(options.ttlMs()), 0, t0,
                    lease.isPresent() ? Outcome.OK : Outcome.FAIL, lease.isPresent() ? "" : "423 held");
            return lease.orElse(null);
        } catch (RuntimeException e) {
            record(Op.ACQUIRE, key, 0, Long.toString(options.ttlMs()), 0, t0, failure(e), describe(e));
            Thread.sleep(50); // a backend is down: do not spin
            return null;
        }
    }

    private void release(FencegateClient gw, String key, Lease lease) {
        long t0 = Clock.nowUs();
        try {
            boolean released = gw.release(lease.leaseId());
            record(Op.RELEASE, key, lease.token(), null, 0, t0, released ? Outcome.OK : Outcome.FAIL, released ? "" : "410 gone");
        } catch (RuntimeException e) {
            record(Op.RELEASE, key, lease.token(), null, 0, t0, failure(e), describe(e));
        }
    }

    /** Mostly a short think; sometimes a pause past the ttl, the holder that wakes up stale. */
    private void pauseOrThink() throws InterruptedException {
        long ttl = options.ttlMs();
        if (random.nextDouble() < options.pauseChance()) {
            Thread.sleep(ttl + random.nextLong(ttl));
        } else if (options.thinkMs() > 0) {
            Thread.sleep(random.nextLong(options.thinkMs() + 1));
        }
    }

    private void record(String f, String key, long token, String value, long prior, long t0, Outcome outcome, String note) {
        history.add(new Op(id, f, key, token, value, prior, t0, Clock.nowUs(), outcome, note));
    }

    /**
     * A 4xx is a refusal, and a connection that was never made (refused, or its connect timed out)
     * carried no request: nothing happened. Anything else (5xx, timeout, broken link) may have applied.
     */
    static Outcome failure(Exception e) {
        if (e instanceof FencegateException fe) {
            return fe.status() >= 400 && fe.status() < 500 ? Outcome.FAIL : Outcome.UNKNOWN;
        }
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ConnectException || t instanceof HttpConnectTimeoutException) {
                return Outcome.FAIL;
            }
        }
        return Outcome.UNKNOWN;
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
