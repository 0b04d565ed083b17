package io.fencegate.gateway.http;

import io.fencegate.store.GuardedOp;
import io.fencegate.store.ItemClaim;
import io.fencegate.store.StoreLimits;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The bodies of {@link TransactionRoutes}, parsed and checked: a malformed body, item, key or token,
 * or a key twice, is 400; more items than the limit is 413.
 *
 * <pre>
 * {"ops":[{"op":"put","key":K,"token":T,"value":"text"} | {…,"valueBase64":"…"} | {"op":"delete","key":K,"token":T}, …]}
 * {"items":[{"key":K,"token":T}, …]}
 * </pre>
 */
final class TransactionBodies {

    /** The gateway's and the store's limits on one request: the longest key, the most items. */
    record Limits(int maxKeyBytes, int maxItems) {}

    private TransactionBodies() {}

    static List<GuardedOp> ops(Buffer body, Limits limits) {
        JsonArray array = array(body, "ops", "{\"ops\":[{\"op\":\"put\",\"key\":…,\"token\":…,\"value\":…}, …]}", limits);
        List<GuardedOp> ops = new ArrayList<>(array.size());
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < array.size(); i++) {
            JsonObject item = item(array, i, "ops");
            String key = key(item, i, "ops", limits, keys);
            long token = token(item, i, "ops");
            Object op = item.getValue("op");
            Object text = item.getValue("value");
            Object base64 = item.getValue("valueBase64");
            if ("delete".equals(op)) {
                if (text != null || base64 != null) {
                    throw bad("ops[" + i + "]: a delete carries no value");
                }
                ops.add(GuardedOp.delete(key, token));
            } else if ("put".equals(op)) {
                ops.add(GuardedOp.put(key, token, value(text, base64, i)));
            } else {
                throw bad("ops[" + i + "].op must be \"put\" or \"delete\"");
            }
        }
        return ops;
    }

    static List<ItemClaim> claims(Buffer body, Limits limits) {
        JsonArray array = array(body, "items", "{\"items\":[{\"key\":…,\"token\":…}, …]}", limits);
        List<ItemClaim> claims = new ArrayList<>(array.size());
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < array.size(); i++) {
            JsonObject item = item(array, i, "items");
            claims.add(new ItemClaim(key(item, i, "items", limits, keys), token(item, i, "items")));
        }
        return claims;
    }

    private static JsonArray array(Buffer body, String name, String shape, Limits limits) {
        JsonObject json;
        try {
            json = body.toJsonObject();
        } catch (DecodeException | ClassCastException e) {
            throw bad("the body must be a JSON object " + shape);
        }
        if (json == null || !(json.getValue(name) instanceof JsonArray array) || array.isEmpty()) {
            throw bad("\"" + name + "\" must be a non-empty array: " + shape);
        }
        if (array.size() > limits.maxItems()) {
            throw new Problem(413, Problem.TOO_LARGE, "Content Too Large", array.size()
                    + " items are over the limit of " + limits.maxItems() + " in one request").with("limit", limits.maxItems());
        }
        return array;
    }

    private static JsonObject item(JsonArray array, int i, String name) {
        if (!(array.getValue(i) instanceof JsonObject item)) {
            throw bad(name + "[" + i + "] must be a JSON object");
        }
        return item;
    }

    private static String key(JsonObject item, int i, String name, Limits limits, Set<String> seen) {
        if (!(item.getValue("key") instanceof String key)) {
            throw Problem.badRequest(Problem.BAD_KEY, name + "[" + i + "].key must be a string");
        }
        try {
            new StoreLimits(limits.maxKeyBytes(), 1).checkKey(key);
        } catch (IllegalArgumentException e) {
            throw Problem.badRequest(Problem.BAD_KEY, name + "[" + i + "]: " + e.getMessage());
        }
        if (!seen.add(key)) {
            throw Problem.badRequest(Problem.BAD_KEY, name + "[" + i + "]: key '" + PathDecoder.shorten(key)
                    + "' appears twice; one request names each item once");
        }
        return key;
    }

    /** A JSON integer from 1 to 2^63-1 (a fraction, a string, 0, a sign or more is 400). */
    private static long token(JsonObject item, int i, String name) {
        Object raw = item.getValue("token");
        if (raw == null) {
            throw Problem.badRequest(Problem.BAD_TOKEN, name + "[" + i + "].token is missing");
        }
        if (!(raw instanceof Integer || raw instanceof Long) || ((Number) raw).longValue() <= 0) {
            throw Problem.badRequest(Problem.BAD_TOKEN, name + "[" + i + "].token must be an integer from 1 to "
                    + Long.MAX_VALUE + ", was " + raw);
        }
        return ((Number) raw).longValue();
    }

    private static byte[] value(Object text, Object base64, int i) {
        if ((text == null) == (base64 == null)) {
            throw bad("ops[" + i + "]: a put carries exactly one of \"value\" (text, stored as UTF-8) and \"valueBase64\"");
        }
        if (text != null) {
            if (!(text instanceof String s)) {
                throw bad("ops[" + i + "].value must be a string");
            }
            return s.getBytes(StandardCharsets.UTF_8);
        }
        try {
            return Base64.getDecoder().decode((String) base64);
        } catch (IllegalArgumentException | ClassCastException e) {
            throw bad("ops[" + i + "].valueBase64 must be base64");
        }
    }

    private static Problem bad(String detail) {
        return Problem.badRequest(Problem.BAD_REQUEST, detail);
    }
}
