package io.fencegate.client;

import java.time.Duration;

/**
 * One request to the gateway, as every transport sends it: {@code path} is relative to the base URI
 * and already percent-encoded; {@code token} is sent as {@code Fencing-Token} when positive; a
 * {@code null} body sends none. {@code bound} is the whole call's timeout.
 */
record HttpCall(String method, String path, Duration bound, long token, String contentType, byte[] body) {
    static HttpCall of(String method, String path, Duration bound) {
        return new HttpCall(method, path, bound, 0, null, null);
    }

    HttpCall fenced(long fencingToken) {
        if (fencingToken <= 0) {
            throw new IllegalArgumentException("a fencing token is positive, got " + fencingToken);
        }
        return new HttpCall(method, path, bound, fencingToken, contentType, body);
    }

    HttpCall body(String type, byte[] bytes) {
        return new HttpCall(method, path, bound, token, type, bytes);
    }
}
