package io.fencegate.store.testkit;

import io.fencegate.store.WriteResult;

/** One write of a concurrent run: which key, which token, what the store answered. */
record Outcome(String key, long token, WriteResult result) {
}
