package io.fencegate.issuer.redis;

import io.fencegate.issuer.IssuerUnavailableException;

/**
 * Redis's token counter belongs to another durable high-water mark than this issuer's: every
 * issuer on one key prefix must share one mark, or a Redis that loses its counter would restart
 * it below tokens the other mark covered. The message says what to do.
 */
public final class ForeignMarkException extends IssuerUnavailableException {
    public ForeignMarkException(String message) {
        super(message, null);
    }
}
