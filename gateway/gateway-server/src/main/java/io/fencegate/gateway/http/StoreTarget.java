package io.fencegate.gateway.http;

import io.fencegate.gateway.StoreBinding;
import io.fencegate.gateway.auth.Principal;
import java.util.Map;

/**
 * What a {@code /v1/stores/...} request addresses, parsed from the raw (undecoded, unnormalised)
 * path: the store, and an item key or a statement name still percent-encoded (nothing for a
 * transaction, a fenced multi-read or a batch of writes: their keys are in the body).
 */
record StoreTarget(StoreBinding binding, Kind kind, String rawRest) {

    enum Kind { ITEM, STATEMENT, TRANSACTIONS, FENCED_READS, WRITES }

    static final String PREFIX = "/v1/stores/";

    /**
     * Parses {@code path}; an unknown store is 404 before anything about the rest is checked. The
     * 404 names only the stores {@code caller} may use: the others' names are not its business.
     */
    static StoreTarget parse(String path, Map<String, StoreBinding> stores, Principal caller) {
        int slash = path.indexOf('/', PREFIX.length());
        String rawStore = slash < 0 ? path.substring(PREFIX.length()) : path.substring(PREFIX.length(), slash);
        String storeName = PathDecoder.decode(rawStore, Problem.BAD_REQUEST);
        StoreBinding binding = stores.get(storeName);
        if (binding == null) {
            throw new Problem(404, Problem.UNKNOWN_STORE, "Not Found",
                    "no store named '" + PathDecoder.shorten(storeName) + "'; this key may use: "
                            + stores.keySet().stream().filter(caller::mayUseStore).toList());
        }
        String rest = slash < 0 ? "" : path.substring(slash + 1);
        if (rest.startsWith("items/")) {
            return new StoreTarget(binding, Kind.ITEM, rest.substring("items/".length()));
        }
        if (rest.startsWith("statements/")) {
            return new StoreTarget(binding, Kind.STATEMENT, rest.substring("statements/".length()));
        }
        if (rest.equals("transactions")) {
            return new StoreTarget(binding, Kind.TRANSACTIONS, "");
        }
        if (rest.equals("writes")) {
            return new StoreTarget(binding, Kind.WRITES, "");
        }
        if (rest.equals("fenced-reads")) {
            return new StoreTarget(binding, Kind.FENCED_READS, "");
        }
        if (rest.equals("items")) {
            throw Problem.badRequest(Problem.BAD_KEY, "the key is empty");
        }
        throw new Problem(404, Problem.NO_SUCH_ROUTE, "Not Found", "no such route under store '" + storeName + "'");
    }
}
