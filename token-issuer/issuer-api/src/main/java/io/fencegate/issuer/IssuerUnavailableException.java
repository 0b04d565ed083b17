package io.fencegate.issuer;

/** The issuer's backend (ZooKeeper, Redis) could not be reached or answered in time. */
public class IssuerUnavailableException extends RuntimeException {

    public IssuerUnavailableException(String message) {
        super(message);
    }

    public IssuerUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
