package io.fencegate.issuer.redis;

import io.fencegate.issuer.IssuerUnavailableException;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps Redis's token counter inside the durable high-water mark.
 *
 * <p>Invariant: every token handed out {@code <=} Redis's ceiling {@code <=} the durable mark.
 * The ceiling is raised only after the mark was durably raised; a lost counter is re-created at
 * the mark while the mark is frozen, so no token can repeat or go backwards. So is a counter that
 * survived a Redis restart: a restart may have rolled it back to an older snapshot, and only the
 * mark knows how far tokens went before it. File I/O (and the
 * one Redis call made under the frozen mark) runs on its own thread, never on Redis's event loop.
 * Concurrent requests share one in-flight repair, so a burst costs one block, not one per caller.
 *
 * <p>The next block is reserved in the background once half of the current one is handed out
 * ({@link #prefetchIfLow}), so acquires do not wait for the mark's fsync; it follows the same
 * order (mark first, then Redis's ceiling), so the invariant holds whenever Redis restarts. When
 * acquires still catch up with a reservation (a slow disk, a high rate), blocks double, up to
 * {@value #MAX_BLOCK_GROWTH} times the configured size: fewer fsyncs, larger gaps after a loss.
 */
final class TokenCounter {

    private static final Logger log = LoggerFactory.getLogger(TokenCounter.class);

    private final RedisAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final TokenHighWaterMark mark;
    static final int MAX_BLOCK_GROWTH = 16;

    private final long maxBlock;
    private volatile long block;
    /** The highest used-up ceiling an acquire waited at: grows the block once per such wait. */
    private final AtomicLong waitedAt = new AtomicLong();
    private final Duration commandTimeout;
    private final ExecutorService markThread;
    private CompletableFuture<Void> inFlight;
    /** Highest mark this issuer reserved: a reply with a lower ceiling predates that reservation. */
    private final AtomicLong reserved = new AtomicLong();
    /** The mark's identity, recorded in Redis beside the counter ('' for a mark without one). */
    private volatile String markId = "";

    TokenCounter(RedisAsyncCommands<String, String> redis, RedisKeys keys, TokenHighWaterMark mark, long block,
                 Duration commandTimeout, ExecutorService markThread) {
        this.redis = redis;
        this.keys = keys;
        this.mark = mark;
        this.block = block;
        this.maxBlock = Math.multiplyExact(block, MAX_BLOCK_GROWTH);
        this.commandTimeout = commandTimeout;
        this.markThread = markThread;
    }

    /**
     * Redis lost the counter or the ceiling, or restarted (and may have rolled them back to a
     * snapshot): re-create both from the durable mark, never below {@code highestSeen}, the highest
     * token this issuer has handed out.
     */
    CompletionStage<Void> recoverLost(long highestSeen) {
        return shared(() -> CompletableFuture.runAsync(() -> reinitWhileFrozen(highestSeen), markThread));
    }

    /**
     * Makes sure the counter under this prefix is this issuer's mark's to cover, before the
     * issuer serves: the identity Redis records must be this mark's. With none recorded (first
     * start, a Redis that lost its keys, an operator who deleted it to give the prefix a new mark)
     * the mark is first raised above Redis's counter and ceiling, so it covers every token Redis
     * may have handed out, then recorded. Blocking; called once, at start.
     *
     * @throws ForeignMarkException if Redis records another mark
     */
    void claimRedis(String where) {
        String id = mark.identity();
        if (id == null) {
            log.warn("The token high-water mark {} has no identity: Redis cannot tell whether every issuer on prefix '{}' "
                    + "shares it", mark, keys.prefix());
            return;
        }
        markId = id;
        String mode = "check";
        long raised = 0;
        for (int attempt = 0; attempt < 5; attempt++) {
            List<Object> reply = await(LeaseScripts.claimMark.<List<Object>>run(redis,
                    new String[] {keys.mark(), keys.counter(), keys.ceiling()}, id, mode, Long.toString(raised)));
            long code = LeaseScripts.first(reply);
            if (code == 1) {
                if (mode.equals("adopt")) {
                    log.info("Recorded the token high-water mark {} ({}) for the counter under prefix '{}' at {}",
                            mark, id, keys.prefix(), where);
                }
                return;
            }
            if (code == -3) {
                throw foreign(where, String.valueOf(LeaseScripts.str(reply.get(1))));
            }
            long above = Math.max(LeaseScripts.asLong(reply.get(1)), LeaseScripts.asLong(reply.get(2)));
            // Not a reservation (Redis's ceiling stays where it is): the mark only has to cover it.
            long current = mark.read();
            raised = current >= above ? current : mark.raise(above, block);
            mode = "adopt";
        }
        throw new IssuerUnavailableException("Redis at " + where + ": the token counter under prefix '" + keys.prefix()
                + "' kept moving while the high-water mark " + mark + " was being recorded");
    }

    private ForeignMarkException foreign(String where, String recorded) {
        return new ForeignMarkException("Redis at " + where + ", key prefix '" + keys.prefix() + "': its token counter is "
                + "covered by another high-water mark (" + recorded + ", recorded in key " + keys.mark() + "), not by this "
                + "issuer's " + mark + " (" + markId + "). Every gateway on one Redis key prefix must share one mark: the "
                + "same highWaterMarkFile (a copy moves it: its identity comes with it) or the same highWaterMarkUrl. To give "
                + "the prefix a new mark on purpose, stop every gateway on it and delete the key " + keys.mark()
                + "; the next gateway raises its mark above Redis's counter before it records it.");
    }

    /** An acquire found the ceiling used up: durably reserve the next block, then let Redis use it. */
    CompletionStage<Void> reserveBlock(long counter) {
        // Not the first reservation: the one made ahead came too late, so reserve more at a time.
        if (reserved.get() > 0 && waitedAt.getAndAccumulate(counter, Math::max) < counter) {
            block = Math.min(block * 2, maxBlock);
        }
        return reserve(counter);
    }

    private CompletionStage<Void> reserve(long floor) {
        long size = block;
        return shared(() -> CompletableFuture.supplyAsync(() -> mark.raise(floor, size), markThread)
                .thenCompose(raised -> {
                    reserved.accumulateAndGet(raised, Math::max);
                    return raiseCeiling(raised, true);
                }));
    }

    /**
     * Lets Redis hand out tokens up to {@code raised}, if Redis records this issuer's mark. None
     * recorded (deleted under a live issuer): records it first, as at start, then raises.
     */
    private CompletableFuture<Void> raiseCeiling(long raised, boolean mayClaim) {
        return LeaseScripts.raiseCeiling.<Long>run(redis, new String[] {keys.counter(), keys.ceiling(), keys.mark()},
                Long.toString(raised), markId).toCompletableFuture().thenCompose(code -> {
                    if (code == -3) {
                        ForeignMarkException e = foreign("prefix " + keys.prefix(), "another mark");
                        log.error("{}", e.getMessage());
                        return CompletableFuture.failedFuture(e);
                    }
                    if (code == -4 && mayClaim) {
                        return CompletableFuture.runAsync(() -> claimRedis("prefix " + keys.prefix()), markThread)
                                .thenCompose(claimed -> raiseCeiling(raised, false));
                    }
                    if (code == -4) {
                        return CompletableFuture.failedFuture(new IssuerUnavailableException("Redis at prefix '"
                                + keys.prefix() + "' keeps losing the record of its high-water mark (" + keys.mark() + ")"));
                    }
                    return CompletableFuture.completedFuture(null);
                });
    }

    /**
     * After a grant of {@code token} under {@code ceiling}: once half of the block is used, starts
     * reserving the next one, unless a reservation is already running or done. A failure only
     * costs the wait it tried to save: the acquire that finds the ceiling used up reserves again.
     */
    void prefetchIfLow(long token, long ceiling) {
        if (ceiling - token > block / 2 || ceiling < reserved.get()) {
            return;
        }
        reserve(ceiling).exceptionally(error -> {
            log.debug("reserving the next token block in advance failed (an acquire will retry): {}", error.toString());
            return null;
        });
    }

    private synchronized CompletableFuture<Void> shared(java.util.function.Supplier<CompletableFuture<Void>> repair) {
        if (inFlight == null || inFlight.isDone()) {
            inFlight = repair.get();
        }
        return inFlight;
    }

    private void reinitWhileFrozen(long highestSeen) {
        mark.whileFrozen(value -> {
            long outcome = await(LeaseScripts.reinit.<Long>run(redis,
                    new String[] {keys.counter(), keys.ceiling(), keys.run(), keys.mark()}, Long.toString(value),
                    Long.toString(highestSeen), markId));
            if (outcome == -3) {
                ForeignMarkException e = foreign("prefix " + keys.prefix(), "another mark");
                log.error("{}", e.getMessage());
                throw e;
            }
            if (outcome == 1 && value > 0) {
                log.warn("Redis lost the fencing-token counter under prefix '{}' (restart without persistence or FLUSHALL?): "
                        + "restarted it at the durable high-water mark {} ({})", keys.prefix(), value, mark);
            } else if (outcome == 1) {
                log.info("Created the fencing-token counter under prefix '{}' ({})", keys.prefix(), mark);
            } else if (outcome == 3) {
                log.warn("Redis restarted or changed role (new run_id or master_replid) under prefix '{}': the token counter "
                        + "it kept may be older than tokens already handed out (a restore from a snapshot, an AOF that lost "
                        + "writes, the data of a server it followed); moved it up "
                        + "to the durable high-water mark {} ({}). Leases granted before the restart are over.",
                        keys.prefix(), value, mark);
            } else if (outcome == 2) {
                log.warn("Redis lost part of the fencing-token counter under prefix '{}': restored it from the durable "
                        + "high-water mark {} ({})", keys.prefix(), value, mark);
            }
            return null;
        });
    }

    private <T> T await(CompletionStage<T> stage) {
        try {
            // Lettuce already bounds the command; this is a second fence against a lost callback.
            return stage.toCompletableFuture().get(commandTimeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = LeaseScripts.unwrap(e.getCause());
            throw cause instanceof RuntimeException r ? r : new IssuerUnavailableException(cause.getMessage(), cause);
        } catch (TimeoutException e) {
            throw new IssuerUnavailableException("Redis did not answer within " + commandTimeout + " while restoring the token counter", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IssuerUnavailableException("interrupted while restoring the token counter", e);
        }
    }
}
