package io.fencegate.store.testkit;
/** Placeholder until this module lands. */
final class Placeholder { private Placeholder() {} }
