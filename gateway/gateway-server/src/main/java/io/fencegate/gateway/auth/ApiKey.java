package io.fencegate.gateway.auth;

import com.fasterxml.jackson.annotation.JsonFormat;
import java.util.List;

/**
 * One API key as configured: its name (for logs and metrics, never the secret), the SHA-256 of the
 * secret in hex, and what it may touch. {@code stores} and {@code lockPrefixes} accept a list or the
 * single string {@code "*"} (everything); an empty or missing list grants nothing.
 *
 * <pre>
 * auth:
 *   keys:
 *     - name: billing
 *       sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
 *       stores: [orders, invoices]
 *       lockPrefixes: ["orders/", "invoices/"]
 *     - name: admin
 *       sha256: ...
 *       stores: "*"
 *       lockPrefixes: "*"
 * </pre>
 */
public record ApiKey(
        String name,
        String sha256,
        @JsonFormat(with = JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY) List<String> stores,
        @JsonFormat(with = JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY) List<String> lockPrefixes) {

    public static final String ALL = "*";

    public ApiKey {
        stores = stores == null ? List.of() : List.copyOf(stores);
        lockPrefixes = lockPrefixes == null ? List.of() : List.copyOf(lockPrefixes);
    }
}
