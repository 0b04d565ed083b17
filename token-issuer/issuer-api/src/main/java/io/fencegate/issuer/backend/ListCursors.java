package io.fencegate.issuer.backend;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LockNames;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The arguments of {@link LeaseIssuer#list}, checked the same way by every backend. A cursor is
 * {@code l1.} + base64url of the last lock name a page covered: the next page starts after it.
 */
public final class ListCursors {
    private static final String TAG = "l1.";

    private ListCursors() { }

    /**
     * Checks a listing's arguments and answers the lock its page starts after: the cursor decoded,
     * null for the first page.
     *
     * @throws IllegalArgumentException naming the first bad argument
     */
    public static String checkedAfter(String lockPrefix, String cursor, int limit) {
        checkArguments(lockPrefix, limit);
        return decode(cursor);
    }

    private static void checkArguments(String lockPrefix, int limit) {
        if (lockPrefix == null) {
            throw new IllegalArgumentException("the lock prefix must not be null (\"\" lists every lock)");
        }
        if (!lockPrefix.isEmpty()) {
            try {
                LockNames.check(lockPrefix);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("the lock prefix breaks the lock-name rule: " + e.getMessage(), e);
            }
        }
        if (limit < 1 || limit > LeaseIssuer.MAX_LIST_LIMIT) {
            throw new IllegalArgumentException("limit must be from 1 to " + LeaseIssuer.MAX_LIST_LIMIT + ", was " + limit);
        }
    }

    public static String encode(String lastLock) {
        return TAG + Base64.getUrlEncoder().withoutPadding().encodeToString(lastLock.getBytes(StandardCharsets.UTF_8));
    }

    /** The last lock a previous page covered; null for null (the first page). */
    private static String decode(String cursor) {
        if (cursor == null) {
            return null;
        }
        if (!cursor.startsWith(TAG) || cursor.length() > 8 * LockNames.MAX_BYTES) {
            throw new IllegalArgumentException("not a lease-listing cursor");
        }
        try {
            return new String(Base64.getUrlDecoder().decode(cursor.substring(TAG.length())), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a lease-listing cursor");
        }
    }
}
