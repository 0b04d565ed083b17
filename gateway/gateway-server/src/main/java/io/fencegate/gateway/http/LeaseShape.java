package io.fencegate.gateway.http;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LeaseMode;
import io.fencegate.issuer.Semaphores;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What {@code POST /v1/leases} asks for besides its lock and times: a lease in a mode ({@code "mode":
 * "read" | "write"}, write when absent) or one permit of a fenced semaphore ({@code "permits": N},
 * {@code "lock"} naming the semaphore). Parsed and checked before any share is taken or the issuer is
 * asked, so bad input changes nothing.
 *
 * @param mode    the lease's mode; {@link LeaseMode#WRITE} for a permit (a permit is a write lease on its slot's lock)
 * @param permits the semaphore's count, or 0 when this is not a permit
 */
record LeaseShape(LeaseMode mode, int permits) {

    static final LeaseShape WRITE = new LeaseShape(LeaseMode.WRITE, 0);

    /** The shape {@code json} asks for; 400 for an unknown mode, a bad count or a mix the contract refuses. */
    static LeaseShape of(JsonObject json) {
        boolean group = json.containsKey("locks");
        Object mode = json.getValue("mode");
        Object permits = json.getValue("permits");
        if (json.containsKey("permits")) {
            if (group) {
                throw Problem.badRequest(Problem.BAD_REQUEST, "\"permits\" asks for a semaphore's permit on one \"lock\", not with \"locks\"");
            }
            if (json.containsKey("mode")) {
                throw Problem.badRequest(Problem.BAD_REQUEST,
                        "\"permits\" and \"mode\" do not go together: a permit is an exclusive lease on one slot of the semaphore");
            }
            if (!(permits instanceof Integer n) || n < 1 || n > Semaphores.MAX_PERMITS) {
                throw Problem.badRequest(Problem.BAD_REQUEST,
                        "\"permits\" must be an integer from 1 to " + Semaphores.MAX_PERMITS + ", was " + permits);
            }
            return new LeaseShape(LeaseMode.WRITE, n);
        }
        if (!json.containsKey("mode")) {
            return WRITE;
        }
        LeaseMode parsed;
        try {
            parsed = LeaseMode.ofWireName(mode instanceof String s ? s : null);
        } catch (IllegalArgumentException e) {
            throw Problem.badRequest(Problem.BAD_REQUEST, "\"mode\" must be \"read\" or \"write\", was " + mode);
        }
        if (group && parsed != LeaseMode.WRITE) {
            throw Problem.badRequest(Problem.BAD_REQUEST, "a group of \"locks\" is granted in write mode only");
        }
        return new LeaseShape(parsed, 0);
    }

    boolean isPermit() {
        return permits > 0;
    }

    /**
     * Checks a semaphore's name against the one slot naming rule ({@link Semaphores#check}): 400 for
     * a name whose longest slot lock the issuer would not take.
     */
    void checkName(String lock) {
        if (isPermit()) {
            try {
                Semaphores.check(lock, permits);
            } catch (IllegalArgumentException e) {
                throw Problem.badRequest(Problem.BAD_REQUEST, e.getMessage());
            }
        }
    }

    /** Every lock a grant of this shape may hold: the lock itself, or each slot's lock of the semaphore. */
    java.util.List<String> locksCovered(String lock) {
        if (!isPermit()) {
            return java.util.List.of(lock);
        }
        java.util.List<String> locks = new java.util.ArrayList<>(permits + 1);
        locks.add(lock);
        for (int slot = 0; slot < permits; slot++) {
            locks.add(Semaphores.slotLock(lock, slot));
        }
        return locks;
    }

    /** Asks the issuer for this shape; a synchronous refusal comes back through the stage. */
    CompletionStage<Optional<Lease>> acquire(LeaseIssuer issuer, String lock, Duration ttl, Duration wait, Duration lockDelay) {
        try {
            return isPermit()
                    ? issuer.acquirePermit(lock, permits, ttl, wait, lockDelay)
                    : issuer.acquire(lock, mode, ttl, wait, lockDelay);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The 201 body of a grant: lock (a permit's slot lock), id, token, expiry, mode, and a permit's slot. */
    static JsonObject granted(Lease lease) {
        JsonObject body = new JsonObject().put("lock", lease.lock()).put("leaseId", lease.leaseId())
                .put("token", lease.token()).put("expiresAt", lease.expiresAt()).put("mode", lease.mode().wireName());
        if (lease.isPermit()) {
            body.put("slot", lease.slot());
        }
        return body;
    }

    /**
     * 501 when the issuer does not keep this shape yet, naming the issuer; for a permit under a
     * {@code leases.lockDelay} prefix on an issuer that grants permits without a delay, says so:
     * granting it silently without the delay the operator configured would let a slot's next holder
     * in while a lost holder may still be acting.
     */
    Problem unsupported(LeaseIssuer issuer, String lock, Duration lockDelay) {
        if (isPermit() && !lockDelay.isZero()) {
            return new Problem(501, Problem.UNSUPPORTED, "Not Implemented",
                    "semaphore '" + PathDecoder.shorten(lock) + "' is under a leases.lockDelay prefix, and the lease issuer ("
                            + issuerName(issuer) + ") grants permits without a lock-delay: take the semaphore outside that prefix");
        }
        return unsupported(issuer);
    }

    /** 501 when the issuer does not keep this shape yet, naming the issuer. */
    Problem unsupported(LeaseIssuer issuer) {
        String what = isPermit() ? "semaphores" : "read leases";
        return new Problem(501, Problem.UNSUPPORTED, "Not Implemented",
                "the lease issuer (" + issuerName(issuer) + ") does not support " + what + " yet");
    }

    static String issuerName(LeaseIssuer issuer) {
        String name = issuer.getClass().getSimpleName();
        return name.endsWith("LeaseIssuer") && name.length() > "LeaseIssuer".length()
                ? name.substring(0, name.length() - "LeaseIssuer".length()) : name;
    }

    /** The 423 detail when nothing was granted in the wait. */
    String held(String lock, long waitMs) {
        return isPermit()
                ? "semaphore '" + PathDecoder.shorten(lock) + "' has no free permit of " + permits + " after waiting " + waitMs + " ms"
                : "lock '" + PathDecoder.shorten(lock) + "' is still held after waiting " + waitMs + " ms";
    }
}
