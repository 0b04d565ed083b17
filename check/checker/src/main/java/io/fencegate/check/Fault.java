package io.fencegate.check;

/** A fault the nemesis injected, from {@code startUs} to {@code endUs} (epoch microseconds). */
public record Fault(String kind, long startUs, long endUs, String detail) {

    public boolean overlaps(long fromUs, long toUs) {
        return startUs <= toUs && fromUs <= endUs;
    }
}
