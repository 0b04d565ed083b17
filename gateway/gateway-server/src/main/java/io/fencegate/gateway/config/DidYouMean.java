package io.fencegate.gateway.config;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;

/** The known name nearest a misspelt one ({@code isuer} → {@code issuer}), for "did you mean" hints. */
final class DidYouMean {
    private DidYouMean() {}

    /** {@code "; did you mean 'x'?"} for the nearest of {@code known} within a few edits, else "". */
    static String hint(String given, Collection<String> known) {
        return nearest(given, known).map(k -> "; did you mean '" + k + "'?").orElse("");
    }

    /** The nearest of {@code known} if it is at most 2 edits away and fewer than half of {@code given}'s letters. */
    static Optional<String> nearest(String given, Collection<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        String g = given.toLowerCase(Locale.ROOT);
        for (String k : known) {
            int d = distance(g, k.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                best = k;
                bestDistance = d;
            }
        }
        return best != null && bestDistance <= 2 && bestDistance * 2 < given.length() ? Optional.of(best) : Optional.empty();
    }

    /** Levenshtein distance, with a swap of two neighbouring letters counted as one edit. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
