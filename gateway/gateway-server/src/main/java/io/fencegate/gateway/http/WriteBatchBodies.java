package io.fencegate.gateway.http;

import io.fencegate.store.GuardedOp;
import io.fencegate.store.StoreLimits;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The body of {@link WriteBatchRoutes}, parsed. Only the batch as a whole can be refused here: a body
 * that is not {@code {"writes":[…]}} with at least one write is 400, more writes than the limit is
 * 413. Everything about one write (its shape, key, token, value) is that write's own answer
 * ({@link Entry#problem}), as the same write sent alone would have had; the others go on.
 *
 * <pre>
 * {"writes":[{"op":"put","key":K,"token":T,"value":"text"} | {…,"valueBase64":"…"} | {"op":"delete","key":K,"token":T}, …]}
 * </pre>
 */
final class WriteBatchBodies {
    private static final String SHAPE = "{\"writes\":[{\"op\":\"put\",\"key\":…,\"token\":…,\"value\":…}, …]}";

    /** One write of the batch: the op, or why it is refused before anything else is asked. */
    record Entry(GuardedOp op, Problem problem) {}

    private WriteBatchBodies() {}

    static List<Entry> parse(Buffer body, int maxWrites, int maxKeyBytes) {
        JsonObject json;
        try {
            json = body.toJsonObject();
        } catch (DecodeException | ClassCastException e) {
            throw bad("the body must be a JSON object " + SHAPE);
        }
        if (json == null || !(json.getValue("writes") instanceof JsonArray array) || array.isEmpty()) {
            throw bad("\"writes\" must be a non-empty array: " + SHAPE);
        }
        if (array.size() > maxWrites) {
            throw new Problem(413, Problem.TOO_LARGE, "Content Too Large", array.size()
                    + " writes are over the limit of " + maxWrites + " in one batch; nothing was written").with("limit", maxWrites);
        }
        List<Entry> entries = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            try {
                entries.add(new Entry(op(array.getValue(i), i, maxKeyBytes), null));
            } catch (Problem p) {
                entries.add(new Entry(null, p));
            }
        }
        return entries;
    }

    /** One write, checked in the single write's order: its shape (400), key (400), token (428 / 400), value (400). */
    private static GuardedOp op(Object raw, int i, int maxKeyBytes) {
        if (!(raw instanceof JsonObject item)) {
            throw bad("writes[" + i + "] must be a JSON object");
        }
        Object op = item.getValue("op");
        if (!"put".equals(op) && !"delete".equals(op)) {
            throw bad("writes[" + i + "].op must be \"put\" or \"delete\"");
        }
        String key = key(item, i, maxKeyBytes);
        long token = token(item, i);
        Object text = item.getValue("value");
        Object base64 = item.getValue("valueBase64");
        if ("delete".equals(op)) {
            if (text != null || base64 != null) {
                throw bad("writes[" + i + "]: a delete carries no value");
            }
            return GuardedOp.delete(key, token);
        }
        return GuardedOp.put(key, token, value(text, base64, i));
    }

    private static String key(JsonObject item, int i, int maxKeyBytes) {
        if (!(item.getValue("key") instanceof String key)) {
            throw Problem.badRequest(Problem.BAD_KEY, "writes[" + i + "].key must be a string");
        }
        try {
            new StoreLimits(maxKeyBytes, 1).checkKey(key);
        } catch (IllegalArgumentException e) {
            throw Problem.badRequest(Problem.BAD_KEY, "writes[" + i + "]: " + e.getMessage());
        }
        return key;
    }

    /** Missing is 428, as a write without a Fencing-Token; anything but a JSON integer from 1 to 2^63-1 is 400. */
    private static long token(JsonObject item, int i) {
        Object raw = item.getValue("token");
        if (raw == null) {
            throw new Problem(428, Problem.MISSING_TOKEN, "Precondition Required",
                    "writes[" + i + "].token is missing: send the lease's token");
        }
        if (!(raw instanceof Integer || raw instanceof Long) || ((Number) raw).longValue() <= 0) {
            throw Problem.badRequest(Problem.BAD_TOKEN, "writes[" + i + "].token must be an integer from 1 to "
                    + Long.MAX_VALUE + ", was " + raw);
        }
        return ((Number) raw).longValue();
    }

    private static byte[] value(Object text, Object base64, int i) {
        if ((text == null) == (base64 == null)) {
            throw bad("writes[" + i + "]: a put carries exactly one of \"value\" (text, stored as UTF-8) and \"valueBase64\"");
        }
        if (text != null) {
            if (!(text instanceof String s)) {
                throw bad("writes[" + i + "].value must be a string");
            }
            return s.getBytes(StandardCharsets.UTF_8);
        }
        try {
            return Base64.getDecoder().decode((String) base64);
        } catch (IllegalArgumentException | ClassCastException e) {
            throw bad("writes[" + i + "].valueBase64 must be base64");
        }
    }

    private static Problem bad(String detail) {
        return Problem.badRequest(Problem.BAD_REQUEST, detail);
    }
}
