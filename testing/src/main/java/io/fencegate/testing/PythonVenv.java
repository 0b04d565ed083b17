package io.fencegate.testing;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A Python virtual environment of a test's own, into which packages are installed the way a user
 * installs them, with pip, offline ({@code --no-index}): no package index is reachable here.
 *
 * <p>The environment sees the interpreter's own packages ({@code --system-site-packages}): an
 * offline build from source ({@link #installSource}, {@code --no-build-isolation}) needs the
 * interpreter's setuptools and wheel, and pip comes from there too ({@code --without-pip} saves the
 * seconds {@code ensurepip} takes). The interpreter is the first of {@code python3} on the PATH and
 * {@code /usr/bin/python3} that has what is asked for.
 */
public final class PythonVenv {
    /** What {@link #installSource} needs of the interpreter. */
    public static final List<String> BUILDS_SOURCE = List.of("pip", "setuptools", "wheel");
    /** What {@link #installWheel} needs. */
    public static final List<String> INSTALLS_WHEELS = List.of("pip");
    private static final List<String> INTERPRETERS = List.of("python3", "/usr/bin/python3");
    private static final long SECONDS = 180;

    private final Path dir;

    private PythonVenv(Path dir) {
        this.dir = dir;
    }

    /** A new environment in {@code dir} (which must not exist yet), on an interpreter that has {@code modules}. */
    public static PythonVenv create(Path dir, List<String> modules) throws IOException, InterruptedException {
        String python = interpreterWith(modules);
        ChildProcess.run(SECONDS, List.of(python, "-m", "venv", "--without-pip", "--system-site-packages", dir.toString()));
        return new PythonVenv(dir);
    }

    /** The first interpreter that has every one of {@code modules}; fails naming what was tried. */
    public static String interpreterWith(List<String> modules) throws IOException, InterruptedException {
        String check = "import importlib.util as u, sys; sys.exit(not all(u.find_spec(m) for m in sys.argv[1:]))";
        for (String python : INTERPRETERS) {
            List<String> command = new ArrayList<>(List.of(python, "-c", check));
            command.addAll(modules);
            try {
                ChildProcess.run(60, command);
                return python;
            } catch (IllegalStateException | IOException notThisOne) {
                // missing, or without one of the modules: try the next
            }
        }
        throw new IllegalStateException("no Python 3 with " + modules + " among " + INTERPRETERS
                + " (Debian: apt-get install python3-pip python3-setuptools python3-wheel python3-venv)");
    }

    /** {@code pip install --no-index --no-deps --no-build-isolation <dir>}: a source folder with a pyproject.toml. */
    public String installSource(Path source) throws IOException, InterruptedException {
        return pip("install", "--no-index", "--no-deps", "--no-build-isolation", source.toString());
    }

    /** {@code pip install --no-index --no-deps <wheel>}. */
    public String installWheel(Path wheel) throws IOException, InterruptedException {
        return pip("install", "--no-index", "--no-deps", wheel.toString());
    }

    /** {@code python -m pip args}, in this environment; its output, or an exception with it. */
    public String pip(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(python().toString(), "-m", "pip", "--disable-pip-version-check"));
        command.addAll(List.of(args));
        return ChildProcess.run(SECONDS, command);
    }

    /** This environment's interpreter. */
    public Path python() {
        return dir.resolve("bin").resolve("python");
    }

    public Path dir() {
        return dir;
    }
}
