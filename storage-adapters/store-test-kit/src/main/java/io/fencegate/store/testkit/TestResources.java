package io.fencegate.store.testkit;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** What a contract test opened, closed after it in reverse order (stores before their backends). */
final class TestResources {
    private final List<AutoCloseable> open = Collections.synchronizedList(new ArrayList<>());

    <T extends AutoCloseable> T add(T resource) {
        open.add(resource);
        return resource;
    }

    void closeAll() throws Exception {
        List<AutoCloseable> all;
        synchronized (open) {
            all = new ArrayList<>(open);
            open.clear();
        }
        Collections.reverse(all);
        for (AutoCloseable c : all) {
            c.close();
        }
    }
}
