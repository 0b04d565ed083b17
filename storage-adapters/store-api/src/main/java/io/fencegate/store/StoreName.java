package io.fencegate.store;

import java.util.regex.Pattern;

/**
 * The one rule for store names, the same for every store: 1-64 of {@code A-Z a-z 0-9 _ . -}.
 * ASCII, so a name compares and is stored the same on every database and file system; a store's
 * backend (schema, database, directory) is claimed for its name at open.
 */
public final class StoreName {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    private StoreName() {}

    /** {@code name}, or an {@link IllegalArgumentException} saying what a name may be. */
    public static String check(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a store name is 1-64 of A-Z a-z 0-9 _ . -, was '" + name + "'");
        }
        return name;
    }
}
