package io.fencegate.dist;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The metric names packaging/monitoring's Grafana dashboard and Prometheus alert rules query. */
final class MonitoredMetrics {
    static final Path DIR = ReleaseArchiveIT.repoRoot().resolve("packaging/monitoring");
    /** Prometheus' own series (not the gateway's): {@code up} is made by the scrape itself. */
    private static final Set<String> PROMETHEUS_OWN = Set.of("up");
    private static final Pattern METRIC = Pattern.compile("\\b([a-z][a-z0-9_]*)\\s*\\{");

    private MonitoredMetrics() {}

    static List<String> dashboardExpressions() throws IOException {
        List<String> exprs = new ArrayList<>();
        for (JsonNode panel : new ObjectMapper().readTree(DIR.resolve("grafana-dashboard.json").toFile()).path("panels")) {
            panel.path("targets").forEach(t -> exprs.add(t.path("expr").asText()));
        }
        return exprs;
    }

    static List<String> alertExpressions() throws IOException {
        List<String> exprs = new ArrayList<>();
        for (JsonNode group : new YAMLMapper().readTree(DIR.resolve("fencegate-alerts.yaml").toFile()).path("groups")) {
            group.path("rules").forEach(r -> exprs.add(r.path("expr").asText()));
        }
        return exprs;
    }

    /** Every series name a dashboard panel or an alert selects ({@code name{...}}), less Prometheus' own. */
    static Set<String> queried() throws IOException {
        Set<String> names = new TreeSet<>();
        List<String> all = new ArrayList<>(dashboardExpressions());
        all.addAll(alertExpressions());
        for (String expr : all) {
            Matcher m = METRIC.matcher(expr);
            while (m.find()) {
                names.add(m.group(1));
            }
        }
        names.removeAll(PROMETHEUS_OWN);
        return names;
    }

    /** The series names in a Prometheus text scrape. */
    static Set<String> exported(String scrape) {
        Set<String> names = new TreeSet<>();
        scrape.lines().filter(l -> !l.isBlank() && !l.startsWith("#"))
                .forEach(l -> names.add(l.split("[{ ]", 2)[0]));
        return names;
    }
}
