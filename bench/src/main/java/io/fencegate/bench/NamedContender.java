package io.fencegate.bench;

/** What the two ways of driving load share: the name a contender has in the report. */
abstract class NamedContender implements Contender {
    private final String name;

    NamedContender(String name) {
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }
}
