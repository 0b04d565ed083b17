package io.fencegate.examples.transfer;

/** The two ways the tellers move money: the same transfers, the same accounts, the same freeze. */
enum Mode {
    PLAIN_LOCK("1", "plain lock", "Redis SET NX PX on both accounts, plain SQL read and write"),
    FENCEGATE("2", "fencegate", "MultiLock on both accounts, fenced multi-read, one guarded transaction");

    final String number;
    final String title;
    final String how;

    Mode(String number, String title, String how) {
        this.number = number;
        this.title = title;
        this.how = how;
    }
}
