package io.fencegate.client;

/**
 * The gateway answered with an error other than 409 (stale), which is a result, not an error.
 * Carries the HTTP status and the RFC 9457 problem {@code type}, {@code title} and {@code detail}.
 */
public class FencegateException extends RuntimeException {
    private final int status;
    private final String type;
    private final String title;
    private final String detail;

    public FencegateException(int status, String type, String title, String detail) {
        super(status + " " + type + (detail == null || detail.isEmpty() ? "" : ": " + detail));
        this.status = status;
        this.type = type;
        this.title = title;
        this.detail = detail;
    }

    public int status() { return status; }

    public String type() { return type; }

    public String title() { return title; }

    public String detail() { return detail; }
}
