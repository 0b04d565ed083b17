package io.fencegate.store.postgres;
/** Placeholder until this module lands. */
final class Placeholder { private Placeholder() {} }
