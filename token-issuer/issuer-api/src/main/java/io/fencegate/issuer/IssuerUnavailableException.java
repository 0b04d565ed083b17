package io.fencegate.issuer;

/**
 * The issuer's backend (ZooKeeper, Redis) could not be reached or answered in time, or the issuer
 * is closed: the same type from every issuer, so a caller (the gateway: 503) treats them alike.
 */
public class IssuerUnavailableException extends RuntimeException {

    public IssuerUnavailableException(String message) {
        super(message);
    }

    public IssuerUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
