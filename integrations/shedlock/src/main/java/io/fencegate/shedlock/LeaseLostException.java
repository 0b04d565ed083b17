package io.fencegate.shedlock;

/**
 * The job's lease ended before the job did (its renewals failed past its expiry, or the issuer
 * says it is gone): another instance may hold the lock now. Writes with its token are refused by
 * the guard anyway; this says so before the job tries.
 */
public class LeaseLostException extends IllegalStateException {
    public LeaseLostException(String message) {
        super(message);
    }
}
