#!/usr/bin/env python3
"""Checks a Maven repository that release/run deployed to, as Maven Central's rules would.

    check-repo.py REPOSITORY_DIR VERSION [--signed]

What must be there: fencegate-bom and every artifact it lists, each with its pom; for a jar, its
-sources.jar (with .java files) and -javadoc.jar (with index.html), or for a jar without code (the
starter) a README in both; every io.fencegate parent of those poms; every io.fencegate artifact
that one of them needs (neither optional nor test-scoped).
Nothing else of io.fencegate may be there (no example, benchmark or test module). With --signed,
an .asc beside every file. Exits 1 with the list of what is wrong.
"""
import pathlib
import sys
import xml.etree.ElementTree as ET
import zipfile

NS = {"m": "http://maven.apache.org/POM/4.0.0"}
GROUP = "io.fencegate"
CHECKSUMS = (".md5", ".sha1", ".sha256", ".sha512", ".asc")


def text(element, path, default=None):
    found = element.find(path, NS)
    return found.text.strip() if found is not None and found.text else default


class Repository:
    def __init__(self, root, version):
        self.root = root / "io" / "fencegate"
        self.version = version
        self.problems = []

    def file(self, artifact, suffix):
        return self.root / artifact / self.version / f"{artifact}-{self.version}{suffix}"

    def pom(self, artifact):
        path = self.file(artifact, ".pom")
        if not path.is_file():
            self.problems.append(f"{artifact}: no {path.name}")
            return None
        return ET.parse(path).getroot()

    def has_code(self, artifact):
        path = self.file(artifact, ".jar")
        return path.is_file() and any(n.endswith(".class") for n in zipfile.ZipFile(path).namelist())

    def need(self, artifact, suffix, entry=None):
        path = self.file(artifact, suffix)
        if not path.is_file():
            self.problems.append(f"{artifact}: no {path.name}")
        elif entry and not any(entry(n) for n in zipfile.ZipFile(path).namelist()):
            self.problems.append(f"{artifact}: {path.name} is empty of what it should hold")


def main(root, version, *flags):
    repo = Repository(pathlib.Path(root), version)
    bom = repo.pom("fencegate-bom")
    if bom is None:
        sys.exit("check-repo: no fencegate-bom " + version + " in " + root)
    listed = {}
    for dep in bom.findall("m:dependencyManagement/m:dependencies/m:dependency", NS):
        if text(dep, "m:groupId") == GROUP:
            listed.setdefault(text(dep, "m:artifactId"), set()).add(text(dep, "m:type", "jar"))

    published, parents, needed = {"fencegate-bom"}, set(), set()
    for artifact, types in sorted(listed.items()):
        pom = repo.pom(artifact)
        if pom is None:
            continue
        published.add(artifact)
        if text(pom, "m:packaging", "jar") == "jar":
            repo.need(artifact, ".jar")
            if repo.has_code(artifact):
                repo.need(artifact, "-sources.jar", lambda n: n.endswith(".java"))
                repo.need(artifact, "-javadoc.jar", lambda n: n == "index.html")
            else:  # a starter: dependencies only, and a README in each (Central wants both jars)
                repo.need(artifact, "-sources.jar", lambda n: n == "README.md")
                repo.need(artifact, "-javadoc.jar", lambda n: n == "README.md")
        for kind in types - {"jar"}:
            repo.need(artifact, "." + kind)
        for dep in pom.findall("m:dependencies/m:dependency", NS):
            if (text(dep, "m:groupId") in (GROUP, "${project.groupId}")
                    and text(dep, "m:optional") != "true"
                    and text(dep, "m:scope", "compile") in ("compile", "runtime")):
                needed.add((artifact, text(dep, "m:artifactId")))
        while pom is not None and text(pom, "m:parent/m:groupId") == GROUP:
            parent = text(pom, "m:parent/m:artifactId")
            parents.add(parent)
            pom = repo.pom(parent)

    for artifact, dependency in sorted(needed):
        if dependency not in published:
            repo.problems.append(f"{artifact}: needs {dependency}, which is not published")
    expected = published | parents
    for extra in sorted(p.name for p in repo.root.iterdir() if p.name not in expected):
        repo.problems.append(f"{extra}: deployed but neither published nor a parent")
    if "--signed" in flags:
        for path in sorted(repo.root.rglob(f"*-{version}*")):
            if path.is_file() and not path.name.endswith(CHECKSUMS) \
                    and not path.with_name(path.name + ".asc").is_file():
                repo.problems.append(f"{path.name}: no .asc signature")

    if repo.problems:
        sys.exit("check-repo: " + str(len(repo.problems)) + " problem(s):\n  " + "\n  ".join(repo.problems))
    jars = sum(1 for a in published if repo.file(a, "-javadoc.jar").is_file())
    print(f"check-repo: {len(published)} published artifacts and {len(parents)} parents of fencegate {version};"
          f" {jars} jars, each with sources and javadoc" + (", all signed" if "--signed" in flags else ""))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
