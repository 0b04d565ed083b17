package io.fencegate.spring.boot;

/**
 * The tag a lock's meters carry: its name up to the first '/', so {@code stock/sku-42} and
 * {@code stock/sku-7} count as {@code stock}. A full lock name would make one time series per
 * item. Name locks {@code kind/id}; a name without '/' (a scheduled job's) is its own prefix.
 */
public final class LockPrefix {
    private static final int MAX = 64;

    private LockPrefix() { }

    public static String of(String lock) {
        if (lock == null || lock.isEmpty()) {
            return "none";
        }
        int slash = lock.indexOf('/');
        String prefix = slash < 0 ? lock : lock.substring(0, slash);
        return prefix.length() > MAX ? prefix.substring(0, MAX) : prefix;
    }
}
