package io.fencegate.check.nemesis;

import io.fencegate.check.Clock;
import io.fencegate.check.Fault;
import io.fencegate.testing.ChildProcess;
import io.fencegate.testing.SteppedWallClock;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * Injects faults on a schedule, one at a time, round-robin over the kinds the deployment has, and
 * logs each with its start and end. The rotation starts with a database crash-restart, so even a
 * short run strikes one. Client pauses need the client processes, which change from phase to
 * phase: {@code clients} supplies the current ones.
 *
 * <p>Each kind says whether it ends leases before their ttl, and each injection whose leases it
 * touches (one gateway's, or everywhere): the checker excuses an overlap of two leases only across
 * a fault that ends leases, and a kind that does not must never need one.
 */
final class Nemesis implements Runnable {
    interface Action {
        Injected run() throws Exception; // does the fault and heals it; null: nothing to strike now
    }

    /**
     * What one injection did, in words, whose leases it touched (a gateway's URL, or everywhere) and
     * when its damage was done ({@code struckUs}, 0: when its action returned): a lease asked for
     * later lives in a new process or session, which this fault cannot end.
     */
    record Injected(String detail, String scope, long struckUs) {
        Injected(String detail, String scope) {
            this(detail, scope, 0);
        }

        static Injected everywhere(String detail) {
            return new Injected(detail, Fault.EVERYWHERE);
        }
    }

    /** A fault kind; {@code endsLeases}: leases in its scope may end before their ttl. */
    record Kind(String name, boolean endsLeases, Action action) {}

    static final long CLOCK_STEP_SECONDS = 600;
    static final long CLOCK_STEP_HOLD_MS = 3_000;
    static final long DB_CLOCK_STEP_SECONDS = 3_600;
    /**
     * Past every lease's ttl, so a step ends them all in Redis's eyes; far short of an hour, because
     * the issuer holds off a lock whose lease the step may have ended early for the step's length.
     */
    static final long REDIS_CLOCK_STEP_SECONDS = 10;

    private static final long HEALTHY_WITHIN_SECONDS = 60;

    private final List<Kind> kinds = new ArrayList<>();
    private final List<Fault> faults = new CopyOnWriteArrayList<>();
    private final Deployment deployment;
    private final long intervalMs;
    private final SplittableRandom random = new SplittableRandom();
    private volatile boolean stopped;
    private volatile boolean paused;
    private final Object idle = new Object();
    private final java.util.concurrent.locks.ReentrantLock striking = new java.util.concurrent.locks.ReentrantLock();

    Nemesis(Deployment d, Supplier<List<ChildProcess>> clients, long ttlMs, long intervalMs) {
        this.deployment = d;
        this.intervalMs = intervalMs;
        kinds.add(new Kind("db-crash-restart", false, () -> Injected.everywhere(d.database.crashAndRestart())));
        kinds.add(new Kind("clock-step", false, () -> {
            // Only the wall clock moves; a lease's expiry and a lock-delay must not move with it.
            int i = Deployment.STEPPED_GATEWAY;
            d.clock.offset(CLOCK_STEP_SECONDS);
            Thread.sleep(CLOCK_STEP_HOLD_MS);
            d.clock.offset(-CLOCK_STEP_SECONDS);
            Thread.sleep(CLOCK_STEP_HOLD_MS);
            d.clock.offset(0);
            Thread.sleep(SteppedWallClock.PICKED_UP_MS); // until the gateway surely reads the true time again
            return new Injected("gateway" + i + " wall clock +" + CLOCK_STEP_SECONDS / 60 + " min for " + CLOCK_STEP_HOLD_MS / 1000
                    + " s, then -" + CLOCK_STEP_SECONDS / 60 + " min for " + CLOCK_STEP_HOLD_MS / 1000 + " s, then right",
                    d.urls.get(i).toString());
        }));
        if (d.databaseClock != null) {
            kinds.add(new Kind("db-clock-step", false, () -> {
                // The database server's wall clock, which the sql issuer's times come from, steps an
                // hour ahead, then an hour behind, then right: the gateways keep the issuer's clock on
                // course, so no lease ends early, none outlives its ttl, and no token comes again.
                d.databaseClock.offset(DB_CLOCK_STEP_SECONDS);
                Thread.sleep(CLOCK_STEP_HOLD_MS);
                d.databaseClock.offset(-DB_CLOCK_STEP_SECONDS);
                Thread.sleep(CLOCK_STEP_HOLD_MS);
                d.databaseClock.offset(0);
                Thread.sleep(SteppedWallClock.PICKED_UP_MS);
                return Injected.everywhere("database server wall clock +" + DB_CLOCK_STEP_SECONDS / 60 + " min for "
                        + CLOCK_STEP_HOLD_MS / 1000 + " s, then -" + DB_CLOCK_STEP_SECONDS / 60 + " min for "
                        + CLOCK_STEP_HOLD_MS / 1000 + " s, then right");
            }));
        }
        if (d.issuerBackups != null) {
            // Leases granted since the backup vanish with the restore: their holders' renews answer 410.
            kinds.add(new Kind("issuer-restore", true, () -> Injected.everywhere(d.issuerBackups.restoreOlder())));
        }
        kinds.add(new Kind("client-pause", false, () -> {
            List<ChildProcess> now = clients.get();
            if (now.isEmpty()) {
                return null;
            }
            ChildProcess c = now.get(random.nextInt(now.size()));
            long ms = 2 * ttlMs + random.nextLong(ttlMs);
            c.stop(); // SIGSTOP: every client thread in it freezes mid-step, leases in hand
            Thread.sleep(ms);
            c.cont();
            return Injected.everywhere(c.name() + " SIGSTOP for " + ms + " ms");
        }));
        // ZooKeeper: the killed gateway's sessions expire, and with them its leases. Redis and SQL:
        // its leases live on in Redis or the database until their ttl.
        kinds.add(new Kind("gateway-kill", d.zookeeper != null, () -> {
            int i = random.nextInt(d.gateways.size());
            d.gateways.get(i).kill9(); // returns once the process is gone, and its sessions with it
            long struck = Clock.nowUs();
            Thread.sleep(500);
            d.restartGateway(i);
            return new Injected("gateway" + i + " kill -9, restarted", d.urls.get(i).toString(), struck);
        }));
        kinds.add(new Kind("db-link-cut", false, () -> {
            d.proxy.cut();
            Thread.sleep(2000);
            d.proxy.restore();
            return Injected.everywhere("gateway-database link cut for 2 s");
        }));
        kinds.add(new Kind("db-link-delay", false, () -> {
            d.proxy.stall();
            Thread.sleep(1500);
            d.proxy.restore();
            return Injected.everywhere("gateway-database link stalled for 1.5 s");
        }));
        if (d.zookeeper != null) {
            kinds.add(new Kind("zk-leader-kill", false, () -> {
                ChildProcess leader = d.zookeeper.killLeader();
                Thread.sleep(1000);
                leader.startAgain();
                d.zookeeper.awaitLeader(60);
                return Injected.everywhere(leader.name() + " (leader) kill -9, restarted");
            }));
            kinds.add(new Kind("zk-session-expiry", true, () -> {
                int i = random.nextInt(d.gateways.size());
                d.gateways.get(i).stop(); // past its 3 s session timeout: the ensemble expires the session
                long struck = Clock.nowUs(); // a lease asked for from now is granted after it wakes, in a new session
                Thread.sleep(5000);
                d.gateways.get(i).cont();
                return new Injected("gateway" + i + " SIGSTOP for 5 s, past its 3 s session", d.urls.get(i).toString(), struck);
            }));
        }
        if (d.redis != null) {
            kinds.add(new Kind("redis-clock-step", false, () -> {
                // Redis keeps a lease's expiry on its wall clock: the issuers repair each step ahead
                // (leases lengthened, locks whose lease it ended early held off), so no lock is
                // granted while its holder still holds it; the step back makes leases last longer.
                d.redisClock.offset(REDIS_CLOCK_STEP_SECONDS);
                Thread.sleep(CLOCK_STEP_HOLD_MS);
                d.redisClock.offset(-REDIS_CLOCK_STEP_SECONDS);
                Thread.sleep(CLOCK_STEP_HOLD_MS);
                d.redisClock.offset(0);
                return Injected.everywhere("redis-server wall clock +" + REDIS_CLOCK_STEP_SECONDS + " s for "
                        + CLOCK_STEP_HOLD_MS / 1000 + " s, then -" + REDIS_CLOCK_STEP_SECONDS + " s for "
                        + CLOCK_STEP_HOLD_MS / 1000 + " s, then right");
            }));
            kinds.add(new Kind("redis-rollback-rdb", true, () -> {
                d.redis.rollbackToSnapshot();
                return Injected.everywhere("kill -9, restarted from the older RDB snapshot");
            }));
            kinds.add(new Kind("redis-flushall", true, () -> {
                d.redis.flushAll();
                d.redis.snapshot(); // the next rollback goes back to here
                return Injected.everywhere("FLUSHALL");
            }));
            kinds.add(new Kind("redis-kill9-aof", true, () -> {
                d.redis.kill9AndRestartFromAof();
                return Injected.everywhere("kill -9, restarted from the AOF (everysec)");
            }));
        }
    }

    List<String> kindNames() {
        return kinds.stream().map(Kind::name).toList();
    }

    List<Fault> faults() {
        return List.copyOf(faults);
    }

    /** No fault after the one under way (if any); a wait for the next strike ends at once. */
    void stop() {
        synchronized (idle) {
            stopped = true;
            idle.notifyAll();
        }
    }

    /**
     * No new fault from now, and waits for the one under way to heal: the final reads between
     * workloads see a whole deployment (they judge the workload, not the fault).
     */
    void pause() {
        paused = true;
        striking.lock();
        striking.unlock();
    }

    void resume() {
        paused = false;
    }

    @Override
    public void run() {
        int next = 0;
        // The first strike (the database crash) waits until the clients have started and writes flow.
        long delay = 2 * intervalMs;
        while (!stopped) {
            idle(delay);
            delay = intervalMs / 2 + random.nextLong(intervalMs);
            if (stopped) {
                return;
            }
            striking.lock();
            try {
                if (!paused) {
                    strike(kinds.get(next++ % kinds.size()));
                }
            } finally {
                striking.unlock();
            }
        }
    }

    private void strike(Kind kind) {
        long start = Clock.nowUs();
        Injected done;
        try {
            done = kind.action().run();
        } catch (Exception e) {
            // a half-done injection may have struck anything: it counts everywhere
            done = Injected.everywhere("FAILED to inject: " + e);
        }
        long returned = Clock.nowUs();
        if (done != null) {
            // A fault lasts until the deployment is healthy again, not until its action returns: a
            // restarted Redis or database is answering before every gateway has reconnected, and the
            // calls refused meanwhile are the fault's, not the quiet time's.
            String unhealed = deployment.awaitHealthy(HEALTHY_WITHIN_SECONDS);
            faults.add(new Fault(kind.name(), start, Clock.nowUs(), unhealed == null ? done.detail()
                    : done.detail() + "; " + unhealed, done.scope(), kind.endsLeases(),
                    done.struckUs() > 0 ? done.struckUs() : returned));
            System.err.println("nemesis: " + kind.name() + ": " + done.detail());
        }
    }

    /**
     * The wait between strikes, cut short by {@link #stop()}: after the last workload the harness
     * waits for this thread, and a fault's own sleeps (a link cut, a pause) are never cut short.
     */
    private void idle(long ms) {
        long deadline = System.nanoTime() + ms * 1_000_000L;
        synchronized (idle) {
            for (long left = ms; !stopped && left > 0; left = (deadline - System.nanoTime()) / 1_000_000L) {
                try {
                    idle.wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
