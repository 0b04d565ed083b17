package io.fencegate.store;

/**
 * The store's backend could not be reached or did not answer in time. A write that failed this
 * way may or may not have applied; under {@link GuardRule#STRICT} retry it with the same token.
 */
public class StoreUnavailableException extends RuntimeException {

    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
