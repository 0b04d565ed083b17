package io.fencegate.check;

/** How an operation ended, as Jepsen records it. */
public enum Outcome {
    /** It happened: the answer says so. */
    OK,
    /** It did not happen: the answer says so (409 stale, 423 held, 410 gone). */
    FAIL,
    /** A timeout, a 5xx or a broken connection: it may or may not have happened, and the checker allows both. */
    UNKNOWN
}
