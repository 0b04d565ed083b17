package io.fencegate.demo;

/** The four ways the buyers sell: the same workload, the same lock, the same pause. */
enum Mode {
    LOCK_ONLY("1", "lock only", "a lock, no tokens: plain SQL read and write"),
    TOKEN_WRITES("2", "lock + token on writes", "guarded PUT through the gateway, plain GET"),
    GATEWAY_FENCED_READS("3", "lock + gateway, fenced reads", "fenced GET, then guarded PUT, through the gateway"),
    JDBC_GUARD_ROW("4", "lock + JDBC guard row", "GuardRowTransactions: debit + order row, one transaction");

    final String number;
    final String title;
    final String how;

    Mode(String number, String title, String how) {
        this.number = number;
        this.title = title;
        this.how = how;
    }

    /** Modes 1 and 2 are the controls: they must show the anomaly, 3 and 4 must be exact. */
    boolean expectsAnomaly() {
        return this == LOCK_ONLY || this == TOKEN_WRITES;
    }
}
