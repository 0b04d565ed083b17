package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.backend.LruMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Which slots of a semaphore this issuer released last and has not granted since: the slot a
 * permit acquire at the head of its line tries first ({@link PermitAcquisition}), before it lists
 * every slot's queue. Only a hint: the try is the zero-wait grant every slot gets, judged in
 * ZooKeeper as always, so a slot taken meanwhile (by another instance) is merely refused and the
 * full scan follows. At one acquire at a time it saves the scan's {@code permits} requests.
 */
final class FreedSlots {

    private final Map<String, Set<Integer>> freed = LruMap.synchronizedOf(4096);

    /** Permit {@code slot} of {@code semaphore} was released through this issuer. */
    void freed(String semaphore, int slot) {
        Set<Integer> slots = freed.computeIfAbsent(semaphore, s -> new LinkedHashSet<>());
        synchronized (slots) {
            slots.remove(slot);
            slots.add(slot); // the latest last
        }
    }

    /** The slot released latest and not granted since, taken out of the set; -1 if none is known. */
    int take(String semaphore) {
        Set<Integer> slots = freed.get(semaphore);
        if (slots == null) {
            return -1;
        }
        synchronized (slots) {
            int latest = -1;
            for (Iterator<Integer> i = slots.iterator(); i.hasNext(); ) {
                latest = i.next();
            }
            slots.remove(latest);
            return latest;
        }
    }

    /** Slot {@code slot} of {@code semaphore} was granted here: no hint any more. */
    void granted(String semaphore, int slot) {
        Set<Integer> slots = freed.get(semaphore);
        if (slots != null) {
            synchronized (slots) {
                slots.remove(slot);
            }
        }
    }
}
