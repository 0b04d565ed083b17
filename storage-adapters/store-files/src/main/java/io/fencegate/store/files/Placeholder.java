package io.fencegate.store.files;
/** Placeholder until this module lands. */
final class Placeholder { private Placeholder() {} }
