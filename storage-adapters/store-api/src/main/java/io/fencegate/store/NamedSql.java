package io.fencegate.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A SQL text with {@code :name} placeholders, parsed once into positional form so each adapter
 * binds values its own way ({@code ?} for JDBC, {@code $1} for the Postgres client). A {@code ::}
 * cast and text inside single quotes are left alone.
 *
 * @param text       the original text
 * @param names      the placeholder names, in order of appearance (a name may repeat)
 * @param positional the text with each placeholder replaced by {@code ?}
 */
public record NamedSql(String text, List<String> names, String positional) {

    private static final Pattern TOKENS = Pattern.compile("'(?:[^']|'')*'|::|:([A-Za-z_][A-Za-z0-9_]*)");

    public static NamedSql parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("statement text is empty");
        }
        List<String> names = new ArrayList<>();
        StringBuilder positional = new StringBuilder();
        Matcher m = TOKENS.matcher(text);
        while (m.find()) {
            if (m.group(1) != null) {
                names.add(m.group(1));
                m.appendReplacement(positional, "?");
            } else {
                m.appendReplacement(positional, Matcher.quoteReplacement(m.group()));
            }
        }
        m.appendTail(positional);
        return new NamedSql(text, List.copyOf(names), positional.toString());
    }

    /** The text with {@code $1, $2, …} placeholders, as the Postgres client wants. */
    public String dollarNumbered() {
        StringBuilder out = new StringBuilder();
        Matcher m = TOKENS.matcher(text);
        int n = 0;
        while (m.find()) {
            m.appendReplacement(out, m.group(1) != null ? "\\$" + (++n) : Matcher.quoteReplacement(m.group()));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** The values in placeholder order; a missing parameter is a clear error. */
    public List<Object> bind(Map<String, Object> params) {
        List<Object> values = new ArrayList<>(names.size());
        for (String name : names) {
            if (!params.containsKey(name)) {
                throw new IllegalArgumentException("missing statement parameter '" + name + "'");
            }
            values.add(params.get(name));
        }
        return values;
    }
}
