package io.fencegate.issuer.redis;

import io.fencegate.issuer.backend.LeaseIdFormat;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets a granting script (the acquire script, or the permit script: one shortcut each) skip the
 * run_id half of the run check ({@code INFO server} inside the script, the costliest part of a
 * grant) while Redis provably still runs the process under which the counter was checked.
 *
 * <p>Why it is safe: Redis 7 never persists its script cache (no scripts in RDB or AOF, SCRIPT LOAD
 * is not propagated), so a server knows a script only if it was loaded since that server started;
 * a restart, also one from an older snapshot, forgets it. The shortcut loads a copy of its
 * script that is unique to a fresh random nonce (SCRIPT LOAD, once), then, after that load has
 * answered, runs the copy as a probe that checks the run inside the same script. Only if the probe
 * passes is the copy armed: the copy then provably sits in the cache of a run whose counter was
 * checked, and of no other live run. Armed acquires call it by digest with the run_id check
 * skipped. On NOSCRIPT the copy is dropped for good and the call is re-run through the checked
 * script; the copy is never sent by EVAL, which would load it into the new run unchecked.
 *
 * <p>The cache proves the process, not its data: it survives {@code REPLICAOF}, so a master that
 * followed its former replica and was promoted back keeps the copy while holding an older counter.
 * So armed acquires still compare {@code master_replid} ({@code INFO replication}, about a quarter
 * of the cost; every change of role gives a new one). FLUSHALL deletes the counter (refused as
 * missing). What neither sees, an older copy of the keys put back within one run and role
 * ({@code DEBUG RELOAD NOSAVE} of an older RDB file, SWAPDB, RESTORE), is caught only by the
 * highest-token check of the issuers that handed out newer tokens. On Redis older than 7, whose
 * RDB files and AOF carry scripts, the shortcut stays off.
 */
final class RunCheckShortcut {

    private static final Logger log = LoggerFactory.getLogger(RunCheckShortcut.class);
    /** Each attempt leaves one script in the server's cache: stop after this many failures in a row. */
    private static final int MAX_FAILED_ARMINGS = 8;

    private final RedisAsyncCommands<String, String> redis;
    private final LeaseScripts.Script checked;
    private final UnaryOperator<String> armedCopy;
    private final boolean supported;
    private final AtomicBoolean arming = new AtomicBoolean();
    private final AtomicInteger failedArmings = new AtomicInteger();
    private final AtomicReference<LeaseScripts.Script> armed = new AtomicReference<>();

    /**
     * @param checked the script, which always checks the whole run; its first argument is the run-check mode
     * @param armedCopy its text as an armed copy unique to the given nonce ({@link LeaseScripts#armedAcquire})
     * @param redisMajorVersion from {@code INFO server}'s {@code redis_version}
     */
    RunCheckShortcut(RedisAsyncCommands<String, String> redis, LeaseScripts.Script checked, UnaryOperator<String> armedCopy,
                     int redisMajorVersion) {
        this.redis = redis;
        this.checked = checked;
        this.armedCopy = armedCopy;
        this.supported = redisMajorVersion >= 7;
    }

    /**
     * Runs the script with {@code args} (whose first element is the run-check mode): through the
     * armed copy with the check skipped if there is one, else through the checked script.
     */
    <T> CompletionStage<T> run(String[] keys, String[] args) {
        LeaseScripts.Script copy = armed.get();
        if (copy == null) {
            return checked(keys, args);
        }
        return copy.runOr(redis, keys, withMode(args, "skip"), noScript -> {
            armed.compareAndSet(copy, null);
            return checked(keys, args);
        });
    }

    /** After a checked grant (the run was just checked): arms a new copy unless one is armed or arming. */
    void armIfIdle(String[] keys, String[] args) {
        if (!supported || armed.get() != null || failedArmings.get() >= MAX_FAILED_ARMINGS
                || !arming.compareAndSet(false, true)) {
            return;
        }
        LeaseScripts.Script copy = new LeaseScripts.Script(armedCopy.apply(LeaseIdFormat.newSecret()),
                ScriptOutputType.MULTI);
        redis.scriptLoad(copy.text())
                .thenCompose(sha -> copy.<List<Object>>runOr(redis, keys, withMode(args, "probe"),
                        // unloaded again already (a restart, SCRIPT FLUSH): stay on the checked script
                        noScript -> CompletableFuture.completedFuture(List.of(0L))))
                .whenComplete((reply, error) -> {
                    if (error == null && LeaseScripts.first(reply) == 1) {
                        failedArmings.set(0);
                        armed.set(copy);
                    } else if (failedArmings.incrementAndGet() == MAX_FAILED_ARMINGS) {
                        log.warn("could not arm a script without the run check {} times in a row; its calls keep "
                                + "checking ({})", MAX_FAILED_ARMINGS, error == null ? "the probe refused" : error.toString());
                    }
                    arming.set(false);
                });
    }

    /** For tests: whether acquires currently skip the run check. */
    boolean isArmed() {
        return armed.get() != null;
    }

    private <T> CompletionStage<T> checked(String[] keys, String[] args) {
        return checked.run(redis, keys, withMode(args, "check"));
    }

    private static String[] withMode(String[] args, String mode) {
        String[] copy = args.clone();
        copy[0] = mode;
        return copy;
    }
}
