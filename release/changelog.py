#!/usr/bin/env python3
"""CHANGELOG.md for a release (Keep a Changelog): the release's heading, and an upgrade note for
every schema migration.

    changelog.py CHANGELOG.md VERSION DATE MIGRATIONS_DIR...

If CHANGELOG.md already has "## [VERSION] - DATE" (the releaser wrote it), it is kept. Otherwise the
"## [Unreleased]" section becomes "## [VERSION] - DATE" under a new, empty "## [Unreleased]". Either
way the release's section must list changes, and every migration file (V<n>__<name>.sql) under the
given folders must be named in the file: its upgrade note. Rewrites CHANGELOG.md in place; exits 1
with what is missing.
"""
import pathlib
import re
import sys


def release_heading(text, version, date):
    released = re.compile(r"^## \[" + re.escape(version) + r"\] - \d{4}-\d{2}-\d{2}\s*$", re.M)
    if released.search(text):
        return text
    if re.search(r"^## \[" + re.escape(version) + r"\]", text, re.M):
        sys.exit(f"changelog: the heading of {version} must read '## [{version}] - YYYY-MM-DD'")
    unreleased = re.compile(r"^## \[Unreleased\].*$", re.M)
    if not unreleased.search(text):
        sys.exit(f"changelog: neither '## [{version}] - DATE' nor '## [Unreleased]' is there")
    return unreleased.sub(f"## [Unreleased]\n\n## [{version}] - {date}", text, count=1)


def section(text, version):
    start = re.search(r"^## \[" + re.escape(version) + r"\].*$", text, re.M)
    following = re.compile(r"^## ", re.M).search(text, start.end())
    return text[start.end():following.start() if following else len(text)]


def main(path, version, date, *migration_dirs):
    changelog = pathlib.Path(path)
    text = release_heading(changelog.read_text(encoding="utf-8"), version, date)
    if not re.search(r"^### \w", section(text, version), re.M):
        sys.exit(f"changelog: the section of {version} lists no changes (### Added, ### Fixed, ...)")
    migrations = sorted({p.stem for d in migration_dirs for p in pathlib.Path(d).rglob("V*__*.sql")})
    if not migrations:
        sys.exit(f"changelog: no migration found under {' '.join(migration_dirs)}")
    missing = [m for m in migrations if m not in text]
    if missing:
        sys.exit("changelog: no upgrade note for the migration(s) " + ", ".join(missing)
                 + " (a row in the Upgrading tables)")
    changelog.write_text(text, encoding="utf-8")
    print(f"changelog: [{version}] with upgrade notes for {len(migrations)} migrations")


if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
