package io.fencegate.dist;

import io.fencegate.testing.ChildProcess;
import io.fencegate.testing.PythonVenv;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The archive's two clients installed as a user installs them: the wheel in {@code clients/python/}
 * with pip into a fresh virtual environment, the tarball in {@code clients/typescript/} with
 * {@code npm install <tgz>} into an empty project (both offline: neither has a dependency). Each then
 * runs a five-line program against a live gateway: a lease, a guarded write, a read.
 */
final class ClientsFromArchive {
    static final String PYTHON_PROGRAM = """
            import fencegate, sys
            client = fencegate.Client(sys.argv[1], timeout=30)
            with client.lease("main/archive/python", ttl=10, wait=5) as lease:
                print(client.put("main", "archive/python", b"from the wheel", token=lease.token))
            print(client.get("main", "archive/python"), fencegate.__file__)
            """;
    static final String NODE_PROGRAM = """
            import { Client } from '@fencegate/client';
            const client = new Client(process.argv[2], { timeoutMs: 30_000 });
            const lease = { ttlMs: 10_000, waitMs: 5000 };
            const written = await client.withLease('main/archive/node', lease, (l) => client.write('main', 'archive/node', l.token, 'from the tgz'));
            console.log(written.kind, (await client.read('main', 'archive/node')).text());
            """;

    private final PythonVenv venv;
    private final Path python;
    private final Path project;

    private ClientsFromArchive(PythonVenv venv, Path python, Path project) {
        this.venv = venv;
        this.python = python;
        this.project = project;
    }

    /** Installs both clients from the unpacked archive {@code root} into fresh folders under {@code work}. */
    static ClientsFromArchive install(Path root, Path work) throws Exception {
        PythonVenv venv = PythonVenv.create(work.resolve("venv"), PythonVenv.INSTALLS_WHEELS);
        venv.installWheel(only(root.resolve("clients/python"), ".whl"));
        Path python = Files.writeString(work.resolve("program.py"), PYTHON_PROGRAM);
        Path project = Files.createDirectories(work.resolve("project"));
        Files.writeString(project.resolve("package.json"), "{\"name\":\"a-user-project\",\"private\":true,\"type\":\"module\"}\n");
        ChildProcess.run(120, List.of("npm", "install", "--prefix", project.toString(), "--offline", "--no-audit", "--no-fund",
                "--loglevel=error", only(root.resolve("clients/typescript"), ".tgz").toString()));
        Files.writeString(project.resolve("program.mjs"), NODE_PROGRAM);
        return new ClientsFromArchive(venv, python, project);
    }

    /** The Python program's output against the gateway at {@code url}. */
    String runPython(String url) throws Exception {
        return ChildProcess.run(60, List.of(venv.python().toString(), python.toString(), url));
    }

    /** The Node program's output, run in the user's project. */
    String runNode(String url) throws Exception {
        return ChildProcess.run(60, List.of("node", project.resolve("program.mjs").toString(), url));
    }

    Path venvDir() {
        return venv.dir();
    }

    Path project() {
        return project;
    }

    /** The one file in {@code dir} whose name ends with {@code suffix}. */
    private static Path only(Path dir, String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> found = files.filter(p -> p.getFileName().toString().endsWith(suffix)).toList();
            if (found.size() != 1) {
                throw new IllegalStateException("expected one *" + suffix + " in " + dir + ", found " + found);
            }
            return found.get(0);
        }
    }
}
