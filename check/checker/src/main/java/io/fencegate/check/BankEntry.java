package io.fencegate.check;

/**
 * What the bank stores in an account: its balance, the transfer that wrote it last and the one
 * before that on this account, as text ({@code "95 3-17 1004-2"}). The ids make each read a cut the
 * checker can place: which transfers it shows, on every account ({@link BankLedger}).
 *
 * @param balance  the money in the account
 * @param transfer the id of the transfer that wrote this value ({@value #INIT} for the opening balances)
 * @param previous the id of the transfer whose value this one replaced on this account ({@value #NONE}: none)
 */
record BankEntry(long balance, String transfer, String previous) {
    /** The transfer that opens the accounts. */
    static final String INIT = "init";
    /** The version of an account before anything was written: missing. */
    static final String NONE = "-";

    String format() {
        return balance + " " + transfer + " " + previous;
    }

    /** The entry {@code text} holds, or null if it is not one (a value no bank client wrote). */
    static BankEntry parse(String text) {
        if (text == null) {
            return null;
        }
        String[] parts = text.trim().split(" ");
        if (parts.length != 3) {
            return null;
        }
        try {
            return new BankEntry(Long.parseLong(parts[0]), parts[1], parts[2]);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
