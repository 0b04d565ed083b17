package io.fencegate.check;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * How the command line names the values of an option ({@link Workload}, {@link Control}): lower
 * case with '-' for '_' ({@code LOCK_SET} is {@code lock-set}), any case accepted, and a refusal
 * that names the option and lists what it takes.
 */
final class OptionEnums {

    private OptionEnums() {}

    static String label(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The constant whose label (or one of {@code aliases}, lower case) is {@code s}. */
    static <E extends Enum<E>> E parse(Class<E> type, String option, String s, Map<String, E> aliases) {
        return parse(option, s, Arrays.asList(type.getEnumConstants()), OptionEnums::label, aliases);
    }

    /** The value among {@code all} whose label (or one of {@code aliases}, lower case) is {@code s}. */
    static <T> T parse(String option, String s, List<T> all, Function<T, String> label, Map<String, T> aliases) {
        String wanted = s.toLowerCase(Locale.ROOT);
        for (T t : all) {
            if (label.apply(t).equals(wanted)) {
                return t;
            }
        }
        T alias = aliases.get(wanted);
        if (alias != null) {
            return alias;
        }
        List<String> labels = all.stream().map(label).toList();
        String expected = String.join(", ", labels.subList(0, labels.size() - 1)) + " or " + labels.get(labels.size() - 1);
        throw new IllegalArgumentException(option + ": expected " + expected + ", got '" + s + "'");
    }
}
