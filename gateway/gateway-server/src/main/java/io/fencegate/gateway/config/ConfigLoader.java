package io.fencegate.gateway.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Reads {@code fencegate.yaml} and applies environment overrides: {@code FENCEGATE_} + the key's
 * path, upper-cased, with every non-alphanumeric character as {@code _} and camelCase folded, e.g.
 * {@code FENCEGATE_SERVER_PORT}, {@code FENCEGATE_LIMITS_MAXBODYBYTES},
 * {@code FENCEGATE_STORES_ORDERS_PASSWORD}. An override may set any key of a section or of a
 * configured store, present in the file or not. The launcher's own variables
 * ({@link #LAUNCHER_VARIABLES}) are left alone.
 */
public final class ConfigLoader {
    private static final String ENV_PREFIX = "FENCEGATE_";
    /**
     * The {@code ./fencegate} launcher's own variables (docs/gateway.md, "Running it"): not config
     * overrides. They cannot collide with one, whose names all start with a section
     * ({@code SERVER_}, {@code LIMITS_}, {@code ISSUER_}, {@code STORES_}).
     */
    static final Set<String> LAUNCHER_VARIABLES = Set.of("FENCEGATE_JAVA_OPTS", "FENCEGATE_NO_BUILD");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

    private ConfigLoader() {}

    public static GatewayConfig load(Path file, Map<String, String> env) {
        if (!Files.isRegularFile(file)) {
            throw new ConfigException("config", "no such file: " + file);
        }
        JsonNode tree;
        try {
            tree = YAML.readTree(file.toFile());
        } catch (IOException e) {
            throw new ConfigException("config: " + file + " is not valid YAML: " + e.getMessage(), e);
        }
        return parse(tree, env);
    }

    /** Parses a YAML document given as text (tests, embedded configs). */
    public static GatewayConfig parse(String yaml, Map<String, String> env) {
        try {
            return parse(YAML.readTree(yaml), env);
        } catch (JsonProcessingException e) {
            throw new ConfigException("config: not valid YAML: " + e.getOriginalMessage(), e);
        }
    }

    /** {@code tree} (a YAML document's root) with {@code env}'s overrides applied, mapped and checked. */
    static GatewayConfig parse(JsonNode tree, Map<String, String> env) {
        if (tree == null || tree.isMissingNode() || tree.isNull()) {
            tree = JsonNodeFactory.instance.objectNode();
        }
        if (!tree.isObject()) {
            throw new ConfigException("config", "the document must be a mapping of sections");
        }
        applyOverrides((ObjectNode) tree, env);
        try {
            return YAML.treeToValue(tree, GatewayConfig.class);
        } catch (JsonMappingException e) {
            String key = e.getPath().stream()
                    .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
                    .collect(Collectors.joining(".")).replace(".[", "[");
            throw new ConfigException(key.isEmpty() ? "config" : key, describe(e));
        } catch (JsonProcessingException e) {
            throw new ConfigException("config", e.getOriginalMessage());
        }
    }

    private static String describe(JsonMappingException e) {
        String message = e.getOriginalMessage();
        if (message.startsWith("Unrecognized field")) {
            return "unknown key";
        }
        int cut = message.indexOf(" at [");
        return cut > 0 ? message.substring(0, cut) : message;
    }

    private static void applyOverrides(ObjectNode root, Map<String, String> env) {
        Map<String, String[]> keys = overridableKeys(root);
        for (Map.Entry<String, String> e : env.entrySet()) {
            if (!e.getKey().startsWith(ENV_PREFIX) || LAUNCHER_VARIABLES.contains(e.getKey())) {
                continue;
            }
            String[] path = keys.get(e.getKey().substring(ENV_PREFIX.length()));
            if (path == null) {
                throw new ConfigException(e.getKey(), "names no config key (see docs/gateway.md, \"Environment overrides\")");
            }
            ObjectNode node = root;
            for (int i = 0; i < path.length - 1; i++) {
                node = node.has(path[i]) && node.get(path[i]).isObject() ? (ObjectNode) node.get(path[i]) : node.putObject(path[i]);
            }
            node.put(path[path.length - 1], e.getValue());
        }
    }

    /** Every key an override may set, by its environment name. */
    private static Map<String, String[]> overridableKeys(ObjectNode root) {
        Map<String, String[]> keys = new LinkedHashMap<>();
        addComponents(keys, "server", GatewayConfig.Server.class);
        addComponents(keys, "server.tls", GatewayConfig.Tls.class);
        addComponents(keys, "limits", GatewayConfig.Limits.class);
        addComponents(keys, "issuer", GatewayConfig.Issuer.class);
        JsonNode stores = root.path("stores");
        for (Iterator<String> names = stores.fieldNames(); names.hasNext(); ) {
            addComponents(keys, "stores." + names.next(), GatewayConfig.Store.class);
        }
        return keys;
    }

    private static void addComponents(Map<String, String[]> keys, String section, Class<? extends Record> type) {
        for (var component : type.getRecordComponents()) {
            if (component.getType() == String.class || component.getType() == Integer.class
                    || component.getType() == Long.class) {
                String path = section + "." + component.getName();
                keys.put(envName(path), path.split("\\."));
            }
        }
    }

    static String envName(String path) {
        return path.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
    }
}
