package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.Semaphores;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher;

/**
 * One permit acquire of a fenced semaphore: a FIFO line, then an ordinary write lease on a free
 * slot's lock ({@link Semaphores#slotLock}), so a permit excludes a plain acquire of that lock and
 * fences with that lock's tokens, and every grant path (one round trip, queue, records, expiry) is
 * the write lease's own.
 *
 * <p>The line is EPHEMERAL_SEQUENTIAL nodes under the semaphore's node ({@link SemaphoreCounts});
 * only its head takes slots, so a permit that frees goes to the oldest waiter. The head first tries
 * the slot this issuer released last, if it knows one ({@link FreedSlots}): one request where the
 * scan below is {@code permits} more, and as safe, since a try is the same zero-wait grant. If that
 * slot is taken (or none is known), the head lists every slot's lock queue with a child watch; it
 * tries the free ones (a zero-wait acquire: only a plain
 * acquire of a slot's lock, which one should not make, can beat it there) and, finding none, waits
 * for a watch: a slot whose queue changes. A waiter behind the head watches its predecessor, as a
 * lock's queue does. The head's child watches stay until their slot's queue next changes (ZooKeeper
 * keeps a watch until it fires); one that fires after this acquire ended does nothing.
 */
final class PermitAcquisition {

    private static final String LINE_PREFIX = "wait-";
    /** A free slot lost to a plain acquire of its lock: look again after this (no watch fires for a slot that stayed held). */
    private static final long RETRY_MS = 100;

    private final IssuerParts parts;
    private final SemaphoreCounts counts;
    private final FreedSlots freedSlots;
    private final String semaphore;
    private final int permits;
    private final long waitMs;
    /** A zero-wait write lease on slot k's lock, with the slot set. */
    private final IntFunction<CompletableFuture<Optional<Lease>>> takeSlot;
    /** Gives back a slot taken after this acquire was answered (timed out, closed). */
    private final Consumer<Lease> giveBack;
    private final CompletableFuture<Optional<Lease>> result = new CompletableFuture<>();
    private final AtomicBoolean scanning = new AtomicBoolean();
    private final Watcher slotWatcher = event -> scan();
    private volatile boolean rescan;
    private volatile String ourPath;
    private volatile boolean done;
    private volatile ScheduledFuture<?> deadline;

    PermitAcquisition(IssuerParts parts, SemaphoreCounts counts, FreedSlots freedSlots, String semaphore, int permits, long waitMs,
            IntFunction<CompletableFuture<Optional<Lease>>> takeSlot, Consumer<Lease> giveBack) {
        this.parts = parts;
        this.counts = counts;
        this.freedSlots = freedSlots;
        this.semaphore = semaphore;
        this.permits = permits;
        this.waitMs = waitMs;
        this.takeSlot = takeSlot;
        this.giveBack = giveBack;
    }

    CompletableFuture<Optional<Lease>> start() {
        counts.check(semaphore, permits).whenComplete((ok, error) -> {
            if (error != null) {
                end(null, error);
                return;
            }
            if (waitMs > 0) {
                try {
                    deadline = parts.scheduler().schedule(() -> end(Optional.empty(), null), waitMs, TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException e) {
                    end(null, new IssuerUnavailableException("ZooKeeper lease issuer closed", e));
                    return;
                }
            }
            joinLine();
        });
        return result;
    }

    void abort(Throwable why) {
        end(null, why);
    }

    private void joinLine() {
        String prefix = parts.nodes().semaphorePath(semaphore) + "/" + LINE_PREFIX;
        CompletableFuture<CuratorEvent> created = parts.zk().unbounded("join line", cb -> parts.client().create()
                .withProtection().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).inBackground(cb).forPath(prefix, new byte[0]));
        created.thenAccept(event -> {
            if (AsyncZk.code(event) == Code.OK && event.getName() != null) {
                ourPath = event.getName();
                if (done) {
                    parts.deleteGuaranteed(ourPath); // answered already: a late node would block the line
                }
            }
        });
        parts.zk().bounded("join line", created).whenComplete((event, error) -> {
            if (error != null || AsyncZk.code(event) != Code.OK) {
                end(null, error != null ? error : AsyncZk.unexpected("join semaphore line", event));
            } else {
                ourPath = event.getName();
                checkLine();
            }
        });
    }

    private void checkLine() {
        if (done) {
            return;
        }
        String linePath = parts.nodes().semaphorePath(semaphore);
        parts.zk().call("list line " + linePath, cb -> parts.client().getChildren().inBackground(cb).forPath(linePath))
                .whenComplete((event, error) -> {
                    if (error != null || AsyncZk.code(event) != Code.OK) {
                        end(null, error != null ? error : AsyncZk.unexpected("list semaphore line", event));
                        return;
                    }
                    List<String> line = line(event.getChildren());
                    int at = line.indexOf(LockNodes.nameOf(ourPath));
                    if (at < 0) {
                        end(null, new IssuerUnavailableException("line node of semaphore " + semaphore + " vanished (session lost?)"));
                    } else if (at == 0) {
                        tryFreedFirst();
                    } else if (waitMs == 0) {
                        end(Optional.empty(), null);
                    } else {
                        watch(linePath + "/" + line.get(at - 1));
                    }
                });
    }

    /** Watches the waiter ahead with a data watch (none is left on a node already gone), as {@link Acquisition} does. */
    private void watch(String predecessor) {
        parts.zk().call("watch " + predecessor, cb -> parts.client().getData().usingWatcher((Watcher) e -> checkLine())
                .inBackground(cb).forPath(predecessor)).whenComplete((event, error) -> {
                    if (error != null) {
                        end(null, error);
                    } else if (AsyncZk.code(event) == Code.NONODE) {
                        checkLine();
                    } else if (AsyncZk.code(event) != Code.OK) {
                        end(null, AsyncZk.unexpected("watch line predecessor", event));
                    }
                });
    }

    /**
     * At the head: the slot this issuer released last and granted to nobody since, tried alone (a
     * zero-wait grant, judged in ZooKeeper like any); the scan when none is known or it was taken.
     * It counts as a scan: a slot watch firing meanwhile (none is set yet) would wait for it.
     */
    private void tryFreedFirst() {
        int slot = freedSlots.take(semaphore);
        if (slot < 0 || slot >= permits || !scanning.compareAndSet(false, true)) {
            scan();
            return;
        }
        takeSlot.apply(slot).whenComplete((lease, error) -> {
            scanning.set(false);
            if (error != null) {
                end(null, error);
            } else if (lease.isPresent()) {
                if (!end(lease, null)) {
                    giveBack.accept(lease.get());
                }
            } else {
                scan();
            }
        });
    }

    /** At the head: every slot's queue, with a child watch; then the free slots are tried in order. One scan at a time. */
    private void scan() {
        if (done) {
            return;
        }
        if (!scanning.compareAndSet(false, true)) {
            rescan = true; // the running scan looks again when it ends
            return;
        }
        rescan = false;
        List<CompletableFuture<Boolean>> free = new ArrayList<>(permits);
        for (int slot = 0; slot < permits; slot++) {
            String lockPath = parts.nodes().lockPath(Semaphores.slotLock(semaphore, slot));
            free.add(parts.zk().call("list " + lockPath, cb -> parts.client().getChildren().usingWatcher(slotWatcher)
                    .inBackground(cb).forPath(lockPath)).thenApply(event -> LockNodes.queue(AcquisitionDriver.children(event)).isEmpty()));
        }
        CompletableFuture.allOf(free.toArray(CompletableFuture[]::new)).whenComplete((v, error) -> {
            if (error != null) {
                scanning.set(false);
                end(null, error);
                return;
            }
            List<Integer> slots = new ArrayList<>();
            for (int slot = 0; slot < permits; slot++) {
                if (free.get(slot).join()) {
                    slots.add(slot);
                }
            }
            tryFree(slots, 0);
        });
    }

    private void tryFree(List<Integer> slots, int next) {
        if (done) {
            scanning.set(false);
            return;
        }
        if (next == slots.size()) {
            scanning.set(false);
            if (rescan) {
                scan();
            } else if (waitMs == 0) {
                end(Optional.empty(), null);
            } else if (!slots.isEmpty()) {
                retryLater();
            }
            return; // none was free: a slot's child watch calls scan
        }
        takeSlot.apply(slots.get(next)).whenComplete((lease, error) -> {
            if (error != null) {
                scanning.set(false);
                end(null, error);
            } else if (lease.isPresent()) {
                scanning.set(false);
                if (!end(lease, null)) {
                    giveBack.accept(lease.get());
                }
            } else {
                tryFree(slots, next + 1);
            }
        });
    }

    private void retryLater() {
        try {
            parts.scheduler().schedule(this::scan, RETRY_MS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            end(null, new IssuerUnavailableException("ZooKeeper lease issuer closed", e));
        }
    }

    /** Answers once (a lease, empty, or {@code error}) and leaves the line; false if answered already. */
    private boolean end(Optional<Lease> answer, Throwable error) {
        synchronized (this) {
            if (done) {
                return false;
            }
            done = true;
        }
        ScheduledFuture<?> timer = deadline;
        if (timer != null) {
            timer.cancel(false);
        }
        if (ourPath != null) {
            parts.deleteGuaranteed(ourPath);
        }
        if (answer != null && answer.isPresent()) {
            freedSlots.granted(semaphore, answer.get().slot());
        }
        if (error != null) {
            result.completeExceptionally(error instanceof java.util.concurrent.CompletionException c && c.getCause() != null
                    ? c.getCause() : error);
        } else {
            result.complete(answer);
        }
        return true;
    }

    /** The line's nodes in order (lowest sequence first). */
    private static List<String> line(List<String> children) {
        List<String> line = new ArrayList<>(children.size());
        for (String child : children) {
            int at = child.lastIndexOf(LINE_PREFIX);
            if (at >= 0 && child.length() - at - LINE_PREFIX.length() == 10) {
                line.add(child);
            }
        }
        line.sort(Comparator.comparingLong(LockNodes::sequenceOf));
        return line;
    }
}
