package io.fencegate.demo;

/**
 * What one run of a mode did. {@code sold} counts the sales a buyer was told succeeded (each one
 * unit, each one order confirmed to a customer); the stock only went down by {@code stock - stockLeft}.
 * {@code pausedMs} is how long the frozen buyer really stayed stopped (0: it never got to pay).
 */
record ModeResult(Mode mode, int stock, int sold, int stockLeft, int staleRefused, long pausedMs, int attempt) {

    /** Sales whose debit is not in the stock: another sale overwrote it. */
    int lostUpdates() {
        return sold - (stock - stockLeft);
    }

    /** Units promised beyond the stock there was. */
    int oversold() {
        return Math.max(0, sold - stock);
    }

    /** Every unit sold once, none twice, none lost. */
    boolean exact() {
        return sold == stock && stockLeft == 0;
    }

    boolean anomaly() {
        return !exact();
    }
}
