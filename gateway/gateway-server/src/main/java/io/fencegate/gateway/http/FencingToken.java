package io.fencegate.gateway.http;

import io.vertx.ext.web.RoutingContext;

/** The {@code Fencing-Token} header: a positive decimal 64-bit integer, nothing else. */
final class FencingToken {
    static final String HEADER = "Fencing-Token";

    private FencingToken() {}

    /** The token, or 0 if the request has none. Malformed (sign, spaces, 0, overflow, twice): 400. */
    static long of(RoutingContext ctx) {
        var values = ctx.request().headers().getAll(HEADER);
        if (values.isEmpty()) {
            return 0;
        }
        if (values.size() > 1) {
            throw Problem.badRequest(Problem.BAD_TOKEN, "send one Fencing-Token header, not " + values.size());
        }
        return parse(values.get(0));
    }

    static long parse(String text) {
        if (text.isEmpty() || text.length() > 19) {
            throw malformed(text);
        }
        long value = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                throw malformed(text);
            }
            // Overflow past 2^63-1 turns the value negative or throws: both are malformed.
            try {
                value = Math.addExact(Math.multiplyExact(value, 10), c - '0');
            } catch (ArithmeticException e) {
                throw malformed(text);
            }
        }
        if (value == 0) {
            throw malformed(text);
        }
        return value;
    }

    private static Problem malformed(String text) {
        String shown = text.length() > 40 ? text.substring(0, 40) + "…" : text;
        return Problem.badRequest(Problem.BAD_TOKEN,
                "Fencing-Token must be a decimal integer from 1 to 9223372036854775807, got '" + shown + "'");
    }
}
