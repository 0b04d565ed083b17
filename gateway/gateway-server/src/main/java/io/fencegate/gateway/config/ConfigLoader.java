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
import io.fencegate.gateway.auth.AuthConfig;
import io.fencegate.issuer.spi.IssuerProvider;
import io.fencegate.issuer.spi.IssuerSettings;
import io.fencegate.store.spi.StoreProvider;
import io.fencegate.store.spi.StoreSettings;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
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
        StoreProviders providers = StoreProviders.discover();
        IssuerProviders issuers = IssuerProviders.discover();
        ObjectNode root = (ObjectNode) tree;
        ConfigProblems problems = new ConfigProblems();
        problems.check(() -> applyOverrides(root, env, issuers, providers));
        // The issuer and each store bind to the record of their type, so each type refuses keys it lacks.
        JsonNode issuerNode = root.remove("issuer");
        JsonNode storesNode = root.remove("stores");
        Sections sections = bind(root, Sections.class, "", "unknown key", problems);
        IssuerSettings issuer = issuerNode == null || issuerNode.isNull() ? null : issuer(issuerNode, issuers, problems);
        Map<String, StoreSettings> stores = stores(storesNode, providers, problems);
        // Each part that bound is checked too, so that one report holds every problem in the file.
        if (issuer != null) {
            problems.check(() -> Backends.validateIssuer(issuer));
        }
        stores.forEach((name, settings) -> problems.check(() -> Backends.validateStore(name, settings)));
        problems.throwIfAny();
        return new GatewayConfig(sections.server(), sections.limits(), sections.auth(), issuer, stores, sections.leases());
    }

    /**
     * A store's settings from its keys, bound to its type's record as a config file's section is:
     * the gateway names the stores of its embedded default by type, like a config does.
     */
    static StoreSettings store(String type, Map<String, String> keys) {
        StoreProvider<?> provider = StoreProviders.discover().forType(type)
                .orElseThrow(() -> new IllegalStateException("no store provider of type '" + type + "' on the classpath"));
        return YAML.convertValue(keys, provider.storeType().settings());
    }

    /** The sections that are the gateway's own. */
    private record Sections(GatewayConfig.Server server, GatewayConfig.Limits limits, AuthConfig auth,
            GatewayConfig.Leases leases) {}

    /**
     * An {@code issuer} section given as its keys ({@code type} among them), bound as a file's
     * would be: how the embedded default names its issuer without compiling against it.
     */
    static IssuerSettings issuer(Map<String, String> section) {
        ConfigProblems problems = new ConfigProblems();
        IssuerSettings issuer = issuer(YAML.valueToTree(section), IssuerProviders.discover(), problems);
        problems.throwIfAny();
        return issuer;
    }

    private static IssuerSettings issuer(JsonNode node, IssuerProviders issuers, ConfigProblems problems) {
        try {
            String type = type(node, "issuer", issuers.types());
            IssuerProvider<?> provider = issuers.forType(type).orElseThrow(() ->
                    new ConfigException("issuer.type", "expected " + issuers.types() + ", got '" + type + "'"
                            + DidYouMean.hint(type, issuers.typeNames())));
            return bind(withoutType(node), provider.issuerType().settings(), "issuer.", "not a key of a " + type + " issuer",
                    problems);
        } catch (ConfigException e) {
            problems.add(e);
            return null;
        }
    }

    /** Each store that binds; a store with a problem is left out and its problem recorded. */
    private static Map<String, StoreSettings> stores(JsonNode node, StoreProviders providers, ConfigProblems problems) {
        Map<String, StoreSettings> stores = new LinkedHashMap<>();
        if (node == null || node.isNull()) {
            return stores;
        }
        if (!node.isObject()) {
            problems.add(new ConfigException("stores", "expected a mapping of store names to stores"));
            return stores;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String at = "stores." + e.getKey();
            problems.check(() -> {
                String type = type(e.getValue(), at, providers.types());
                StoreProvider<?> provider = providers.forType(type).orElseThrow(() ->
                        new ConfigException(at + ".type", "expected " + providers.types() + ", got '" + type + "'"
                                + DidYouMean.hint(type, providers.typeNames())));
                StoreSettings settings = bind(withoutType(e.getValue()), provider.storeType().settings(), at + ".",
                        "not a key of a " + type + " store", problems);
                if (settings != null) {
                    stores.put(e.getKey(), settings);
                }
            });
        }
        return stores;
    }

    private static String type(JsonNode node, String at, String expected) {
        if (node == null || !node.isObject()) {
            throw new ConfigException(at + ".type", "required: " + expected);
        }
        JsonNode type = node.get("type");
        if (type == null || !type.isTextual() || type.asText().isBlank()) {
            throw new ConfigException(at + ".type", "required: " + expected);
        }
        return type.asText();
    }

    private static ObjectNode withoutType(JsonNode node) {
        ObjectNode copy = ((ObjectNode) node).deepCopy();
        copy.remove("type");
        return copy;
    }

    /**
     * {@code node} as {@code type}, or null if a value is bad. Every unknown key (at any depth of
     * the record) is recorded, with the nearest known key as a hint, then left out so that the
     * binding can still find a bad value; the first bad value is recorded too.
     */
    private static <T> T bind(JsonNode node, Class<T> type, String prefix, String unknownKey, ConfigProblems problems) {
        ObjectNode known = ((ObjectNode) node).deepCopy();
        dropUnknownKeys(known, type, prefix, unknownKey, problems);
        try {
            // Bound despite unknown keys (already recorded), so that its values are checked too.
            return YAML.treeToValue(known, type);
        } catch (JsonMappingException e) {
            String key = e.getPath().stream()
                    .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
                    .collect(Collectors.joining(".")).replace(".[", "[");
            String at = prefix + key;
            problems.add(new ConfigException(at.isEmpty() ? "config" : at.endsWith(".") ? at.substring(0, at.length() - 1) : at,
                    e.getOriginalMessage().startsWith("Unrecognized field") ? unknownKey : describe(e)));
        } catch (JsonProcessingException e) {
            problems.add(new ConfigException("config", e.getOriginalMessage()));
        }
        return null;
    }

    /** Removes and records the keys of {@code node} that {@code record} (or a record inside it) lacks. */
    private static void dropUnknownKeys(ObjectNode node, Class<?> record, String prefix, String unknownKey,
            ConfigProblems problems) {
        if (!record.isRecord()) {
            return;
        }
        Map<String, java.lang.reflect.RecordComponent> components = new LinkedHashMap<>();
        for (var c : record.getRecordComponents()) {
            components.put(c.getName(), c);
        }
        // At the top, the issuer and stores sections (bound apart) are known names too.
        Set<String> names = new java.util.LinkedHashSet<>(components.keySet());
        if (record == Sections.class) {
            names.addAll(List.of("issuer", "stores"));
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            var component = components.get(field.getKey());
            if (component == null) {
                problems.add(new ConfigException(prefix + field.getKey(),
                        unknownKey + DidYouMean.hint(field.getKey(), names)));
                it.remove();
                continue;
            }
            String at = prefix + field.getKey();
            JsonNode value = field.getValue();
            Class<?> inner = component.getType().isRecord() ? component.getType() : elementType(component);
            if (inner == null) {
                continue;
            }
            if (value.isObject() && component.getType().isRecord()) {
                dropUnknownKeys((ObjectNode) value, inner, at + ".", "unknown key", problems);
            } else if (value.isArray()) {
                for (int i = 0; i < value.size(); i++) {
                    if (value.get(i).isObject()) {
                        dropUnknownKeys((ObjectNode) value.get(i), inner, at + "[" + i + "].", "unknown key", problems);
                    }
                }
            } else if (value.isObject() && Map.class.isAssignableFrom(component.getType())) {
                for (Iterator<Map.Entry<String, JsonNode>> entries = value.fields(); entries.hasNext(); ) {
                    Map.Entry<String, JsonNode> entry = entries.next();
                    if (entry.getValue().isObject()) {
                        dropUnknownKeys((ObjectNode) entry.getValue(), inner, at + "." + entry.getKey() + ".",
                                "unknown key", problems);
                    }
                }
            }
        }
    }

    /** The record type of a {@code List<R>}'s elements or a {@code Map<String, R>}'s values, else null. */
    private static Class<?> elementType(java.lang.reflect.RecordComponent component) {
        if (component.getGenericType() instanceof java.lang.reflect.ParameterizedType p) {
            var args = p.getActualTypeArguments();
            if (args[args.length - 1] instanceof Class<?> c && c.isRecord()) {
                return c;
            }
        }
        return null;
    }

    private static String describe(JsonMappingException e) {
        String message = e.getOriginalMessage();
        int cut = message.indexOf(" at [");
        return cut > 0 ? message.substring(0, cut) : message;
    }

    private static void applyOverrides(ObjectNode root, Map<String, String> env, IssuerProviders issuers,
            StoreProviders providers) {
        Map<String, String[]> keys = overridableKeys(root, env, issuers, providers);
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

    /**
     * Every key an override may set, by its environment name: the issuer's and each store's are
     * those of their type (as the file or an override of {@code type} names it), or of every type
     * when the type is unknown, so that the type's own error is the one reported.
     */
    private static Map<String, String[]> overridableKeys(ObjectNode root, Map<String, String> env, IssuerProviders issuers,
            StoreProviders providers) {
        Map<String, String[]> keys = new LinkedHashMap<>();
        addComponents(keys, "server", GatewayConfig.Server.class);
        addComponents(keys, "server.tls", GatewayConfig.Tls.class);
        addComponents(keys, "limits", GatewayConfig.Limits.class);
        addComponents(keys, "limits.perKey", GatewayConfig.PerKey.class);
        addKey(keys, "issuer.type");
        Optional<IssuerProvider<?>> issuer = issuers.forType(typeOf(root.path("issuer"), "issuer", env));
        for (IssuerProvider<?> p : issuer.isPresent() ? List.of(issuer.get()) : issuers.all()) {
            addComponents(keys, "issuer", p.issuerType().settings());
        }
        for (Iterator<String> names = root.path("stores").fieldNames(); names.hasNext(); ) {
            String name = names.next();
            String at = "stores." + name;
            addKey(keys, at + ".type");
            Optional<StoreProvider<?>> provider = providers.forType(typeOf(root.path("stores").path(name), at, env));
            for (StoreProvider<?> p : provider.isPresent() ? List.of(provider.get()) : providers.all()) {
                addComponents(keys, at, p.storeType().settings());
            }
        }
        return keys;
    }

    /** The {@code type} of the section at {@code path}: its override if there is one, else the file's. */
    private static String typeOf(JsonNode section, String path, Map<String, String> env) {
        String override = env.get(ENV_PREFIX + envName(path + ".type"));
        return override != null ? override : section.path("type").asText(null);
    }

    private static void addComponents(Map<String, String[]> keys, String section, Class<?> type) {
        for (var component : type.getRecordComponents()) {
            if (component.getType() == String.class || component.getType() == Integer.class
                    || component.getType() == Long.class) {
                addKey(keys, section + "." + component.getName());
            }
        }
    }

    private static void addKey(Map<String, String[]> keys, String path) {
        keys.put(envName(path), path.split("\\."));
    }

    static String envName(String path) {
        return path.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
    }
}
