package io.fencegate.examples.transfer;

/** What the example reads of a mode's bank, plainly: one account's balance, and the total. */
interface Balances {
    long of(String account) throws Exception;

    long total() throws Exception;
}
