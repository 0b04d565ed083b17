package io.fencegate.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** Median with [min–max], the one summary this report uses. */
record Stats(double median, double min, double max) {

    static Stats of(List<Double> values) {
        List<Double> v = new ArrayList<>(values);
        v.removeIf(d -> d.isNaN() || d.isInfinite());
        if (v.isEmpty()) {
            return new Stats(Double.NaN, Double.NaN, Double.NaN);
        }
        Collections.sort(v);
        int n = v.size();
        double median = n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
        return new Stats(median, v.get(0), v.get(n - 1));
    }

    String format(String pattern) {
        if (Double.isNaN(median)) {
            return "–";
        }
        if (min == max) {
            return String.format(Locale.ROOT, pattern, median);
        }
        return String.format(Locale.ROOT, pattern + " [" + pattern + "–" + pattern + "]", median, min, max);
    }
}
