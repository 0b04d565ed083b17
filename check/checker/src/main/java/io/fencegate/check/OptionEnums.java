package io.fencegate.check;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How the command line names the constants of an option's enum ({@link Workload}, {@link Control}):
 * lower case with '-' for '_' ({@code LOCK_SET} is {@code lock-set}), any case accepted, and a
 * refusal that names the option and lists what it takes.
 */
final class OptionEnums {

    private OptionEnums() {}

    static String label(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The constant whose label (or one of {@code aliases}, lower case) is {@code s}. */
    static <E extends Enum<E>> E parse(Class<E> type, String option, String s, Map<String, E> aliases) {
        String wanted = s.toLowerCase(Locale.ROOT);
        E[] constants = type.getEnumConstants();
        for (E e : constants) {
            if (label(e).equals(wanted)) {
                return e;
            }
        }
        E alias = aliases.get(wanted);
        if (alias != null) {
            return alias;
        }
        List<String> labels = Arrays.stream(constants).map(OptionEnums::label).toList();
        String expected = String.join(", ", labels.subList(0, labels.size() - 1)) + " or " + labels.get(labels.size() - 1);
        throw new IllegalArgumentException(option + ": expected " + expected + ", got '" + s + "'");
    }
}
