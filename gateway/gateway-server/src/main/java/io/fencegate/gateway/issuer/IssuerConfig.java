package io.fencegate.gateway.issuer;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.store.spi.ExclusivePath;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The {@code issuer} section: one record per issuer type, its components the keys that type
 * accepts. Sealed, so opening one is an exhaustive switch: a new type cannot fall into another's
 * branch. Each type checks its own keys ({@link #validate()}) and opens itself ({@link #open}).
 */
public sealed interface IssuerConfig permits ZooKeeperIssuerConfig, EmbeddedZooKeeperIssuerConfig, RedisIssuerConfig,
        SqlIssuerConfig {

    /** The record each {@code type} binds to, in the order error messages list them. */
    Map<String, Class<? extends IssuerConfig>> TYPES = types();

    private static Map<String, Class<? extends IssuerConfig>> types() {
        Map<String, Class<? extends IssuerConfig>> types = new LinkedHashMap<>();
        types.put("zookeeper", ZooKeeperIssuerConfig.class);
        types.put("redis", RedisIssuerConfig.class);
        types.put("sql", SqlIssuerConfig.class);
        types.put("embedded-zookeeper", EmbeddedZooKeeperIssuerConfig.class);
        return java.util.Collections.unmodifiableMap(types);
    }

    /** The types, as error messages list them: "a, b or c". */
    static String typeList() {
        java.util.List<String> names = java.util.List.copyOf(TYPES.keySet());
        return String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.get(names.size() - 1);
    }

    /**
     * Checks every key without opening anything.
     *
     * @throws io.fencegate.store.spi.InvalidSettingException naming the key, relative to {@code issuer}
     */
    void validate();

    /**
     * Local state this issuer needs to itself (an embedded server's data), claimed before anything
     * opens; none by default. A Redis issuer's mark file is shared, not claimed: its raises lock it.
     */
    default List<ExclusivePath> exclusivePaths() {
        return List.of();
    }

    /**
     * Opens the issuer (validated before). What it opens besides the issuer (an embedded server,
     * a pool) goes to {@code closeOnStop}, which closes in reverse order after the issuer.
     */
    Opened open(Consumer<AutoCloseable> closeOnStop) throws Exception;

    /** An open issuer and the words the start-up line uses for it. */
    record Opened(LeaseIssuer issuer, String description) {}
}
