package io.fencegate.store.jdbc;
/** Placeholder until this module lands. */
final class Placeholder { private Placeholder() {} }
