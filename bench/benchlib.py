"""Real Java programs for duplex's end-to-end checks and measurements.

Each workload is a Debian-packaged program (or library plus a small driver shipped here as Java
source), with the jars to rewrite, a main class, arguments, inputs prepared in a cache directory,
and a normaliser that turns one run into text that is equal across correct runs (timings and
other run-dependent lines removed). Standard library only.

Cache: $DUPLEX_BENCH_CACHE, else build/bench-cache of this checkout.
"""

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench"
SHARE = Path("/usr/share/java")
MIME_XML = Path("/usr/share/mime/packages/freedesktop.org.xml")
JQUERY = Path("/usr/share/javascript/jquery/jquery.js")
HIGHLIGHT = Path("/usr/share/javascript/highlight.js/highlight.js")
BSH_TAR = Path("/usr/src/bsh-src/bsh.tar.gz")
JAVA_HOME = Path(os.environ.get("JAVA_HOME", "/usr/lib/jvm/java-17-openjdk-amd64"))


def java_bin(name: str = "java") -> str:
    p = JAVA_HOME / "bin" / name
    return str(p) if p.exists() else name


def cache_dir() -> Path:
    d = Path(os.environ.get("DUPLEX_BENCH_CACHE", REPO / "build" / "bench-cache"))
    d.mkdir(parents=True, exist_ok=True)
    return d


def exit_on_sigterm() -> None:
    """SIGTERM raises SystemExit, so a running JVM is killed on the way out (see run)."""
    import signal
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Packages


def missing_packages(packages: List[str]) -> List[str]:
    missing = []
    for p in packages:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", p],
                           capture_output=True, text=True)
        if "install ok installed" not in r.stdout:
            missing.append(p)
    return missing


def ensure_packages(packages: List[str],
                    how: str = "run scripts/install-deps.sh --with-tests") -> None:
    """Installs missing Debian packages when running as root; otherwise says what to install."""
    missing = missing_packages(packages)
    if not missing:
        return
    if os.geteuid() != 0:
        raise SystemExit("bench: missing packages %s (%s)" % (" ".join(missing), how))
    log("bench: installing " + " ".join(missing))
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=False, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends"] + missing,
                   check=True, env=env, stdout=subprocess.DEVNULL)


# ---------------------------------------------------------------------------------------------
# Workloads


@dataclass
class Workload:
    name: str
    description: str
    packages: List[str]
    app_jars: List[Path]                     # rewritten by duplex, in classpath order
    main: str
    args: Callable[[Path, Path, str], List[str]]  # (prepared dir, run dir, size) -> arguments
    normalise: Callable[[str, str, Path], str]  # (stdout, stderr, run dir) -> comparable text
    prepare: Callable[["Workload", Path], List[Path]] = None  # -> extra classpath entries
    threads: int = 1                         # application threads doing the work
    classes: int = 0                         # classes in app_jars (informational)
    # JVM options every configuration of the program gets, the uninstrumented one included
    # (before the configuration's own, which may override them).
    jvm_opts: List[str] = field(default_factory=list)
    # Sizes: "large" runs for a few seconds; "small" (about 1 s of CPU) is what the checks and
    # the measurements use, since recording every call edge (interval 1) walks the stack per
    # call and makes a program 20 to 200 times slower.

    def prep_dir(self) -> Path:
        d = cache_dir() / "inputs" / self.name
        d.mkdir(parents=True, exist_ok=True)
        return d


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _stamp_ok(stamp: Path, key: str) -> bool:
    return stamp.exists() and stamp.read_text() == key


def _compile_driver(w: Workload, source: Path) -> List[Path]:
    """javac's the driver into the cache, once per version of its source."""
    out = w.prep_dir() / "classes"
    key = _sha256(source.read_bytes()) + ":" + ":".join(str(j) for j in w.app_jars)
    stamp = out / ".stamp"
    if not _stamp_ok(stamp, key):
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        cp = ":".join(str(j) for j in w.app_jars)
        subprocess.run([java_bin("javac"), "-nowarn", "-d", str(out), "-cp", cp, str(source)],
                       check=True)
        stamp.write_text(key)
    return [out]


def _keep_stdout(stdout: str, stderr: str, run_dir: Path) -> str:
    return stdout


# H2 -----------------------------------------------------------------------------------------

# xl: the steady-state phase, where an iteration of large took 0.1-0.2 s once compiled.
H2_SIZES = {"xl": (5000, 40000), "large": (1000, 8000), "small": (200, 1500)}


def _h2_prepare(w: Workload, prep: Path) -> List[Path]:
    template = (BENCH / "workloads/h2/bench.sql").read_text()
    for size, (customers, orders) in H2_SIZES.items():
        sql = template.replace("{{CUSTOMERS}}", str(customers)).replace("{{ORDERS}}", str(orders))
        p = prep / ("bench-%s.sql" % size)
        if not p.exists() or p.read_text() != sql:
            p.write_text(sql)
    return []


def _h2_args(prep: Path, run: Path, size: str) -> List[str]:
    return ["-url", "jdbc:h2:mem:bench", "-script", str(prep / ("bench-%s.sql" % size)),
            "-showResults"]


# Eclipse compiler ---------------------------------------------------------------------------

def _ecj_prepare(w: Workload, prep: Path) -> List[Path]:
    stamp = prep / ".stamp"
    key = "v4:%s:%d" % (BSH_TAR, BSH_TAR.stat().st_size)
    if not _stamp_ok(stamp, key):
        shutil.rmtree(prep / "bsh", ignore_errors=True)
        with tarfile.open(BSH_TAR) as t:
            t.extractall(prep / "bsh")
        # BeanShell's interpreter and its bundled ASM; the servlet and BSF glue need jars that
        # are not installed. all: all of it (121 files; not used by default); large: the bsh
        # package and ASM, with whatever else they use found on -sourcepath; small: ASM alone.
        src, asm = prep / "bsh" / "src", prep / "bsh" / "asm" / "src"
        sets = {
            "all": [p for r in (src, asm) for p in r.rglob("*.java") if "/servlet/" not in str(p)],
            "large": list((src / "bsh").glob("*.java")) + list(asm.rglob("*.java")),
            "small": list(asm.rglob("*.java")),
        }
        for size, files in sets.items():
            (prep / ("files-%s.txt" % size)).write_text(
                "\n".join(sorted(str(p) for p in files)) + "\n")
        stamp.write_text(key)
    return []


def _ecj_args(prep: Path, run: Path, size: str) -> List[str]:
    bsh = prep / "bsh"
    return ["-8", "-nowarn", "-proc:none", "-proceedOnError", "-sourcepath",
            "%s:%s" % (bsh / "src", bsh / "asm" / "src"), "-d", str(run / "classes"),
            "@" + str(prep / ("files-%s.txt" % size))]


def _ecj_normalise(stdout: str, stderr: str, run: Path) -> str:
    lines = []
    out = run / "classes"
    for p in sorted(out.rglob("*.class")):
        lines.append("%s %s" % (p.relative_to(out), _sha256(p.read_bytes())[:16]))
    problems = [l for l in (stdout + stderr).splitlines() if re.match(r"^\d+ problems? \(", l)]
    lines.append("classes written: %d" % (len(lines)))
    lines.extend(problems)
    return "\n".join(lines) + "\n"


# Rhino --------------------------------------------------------------------------------------

# Rhino's parser recurses once per nested expression (IRFactory.transform and transformInfix,
# about 650 levels deep on jQuery), close to the default 1 MB thread stack once C1 compiles it.
# The smallest -Xss each needs (small input, 2026-11-25): the original 512 KB; Exhaustive 1 MB
# (the events' calls make C1 spill more of each frame: interpreted, or compiled by C2 alone, it
# fits in 384 KB); Full @1 2 MB and Partial @1 3 MB (a twin's frame above every sampled
# activation, all of them at interval 1). Every configuration, the original included, runs
# with 4 MB so that none fails for want of stack (docs/design/hotspot-costs.md, section 9).
RHINO_JVM_OPTS = ["-Xss4m"]

def _rhino_args(prep: Path, run: Path, size: str) -> List[str]:
    # -opt -1: interpret, so the work stays in js.jar instead of classes generated at run time.
    return ["-opt", "-1", str(BENCH / "workloads/rhino/highlight.js"), str(HIGHLIGHT),
            str(JQUERY), "1", "20000" if size == "large" else "3000"]


# Xalan --------------------------------------------------------------------------------------

def _mime_subset(prep: Path, types: int) -> Path:
    """The MIME database cut after its first `types` mime-type elements (DTD kept)."""
    p = prep / ("mime-%d.xml" % types)
    if not p.exists():
        text = MIME_XML.read_text(encoding="utf-8")
        end = 0
        for _ in range(types):
            end = text.index("</mime-type>", end) + len("</mime-type>")
        p.write_text(text[:end] + "\n</mime-info>\n", encoding="utf-8")
    return p


def _xalan_args(prep: Path, run: Path, size: str) -> List[str]:
    src = MIME_XML if size == "large" else _mime_subset(prep, 30)
    return ["-IN", str(src), "-XSL", str(BENCH / "workloads/xalan/mime.xsl"),
            "-OUT", str(run / "out.xml")]


def _xalan_normalise(stdout: str, stderr: str, run: Path) -> str:
    p = run / "out.xml"
    return stdout + (p.read_text(encoding="utf-8") if p.exists() else "(no out.xml)\n")


# Sunflow ------------------------------------------------------------------------------------

def _sunflow_prepare(w: Workload, prep: Path) -> List[Path]:
    """Renders the golden images (resources/golden_XXXX.png) once with the original jar."""
    golden = prep / "resources" / "golden_0080.png"
    if not golden.exists():
        (prep / "resources").mkdir(parents=True, exist_ok=True)
        log("bench: sunflow: rendering the reference images (-regen), once")
        subprocess.run([java_bin(), "-cp", str(SHARE / "sunflow.jar"), "org.sunflow.Benchmark",
                        "-regen"], cwd=prep, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return [prep]  # Benchmark finds /resources/golden_0080.png on the class path


def _sunflow_normalise(stdout: str, stderr: str, run: Path) -> str:
    return "".join(l + "\n" for l in (stdout + stderr).splitlines() if "Image check" in l)


# Xerces -------------------------------------------------------------------------------------

def _xerces_args(prep: Path, run: Path, size: str) -> List[str]:
    if size == "large":
        return ["-x", "20", "-n", str(MIME_XML)]
    return ["-x", "2", "-n", str(_mime_subset(prep, 30))]  # small


def _xerces_normalise(stdout: str, stderr: str, run: Path) -> str:
    return re.sub(r"\d+/\d+=\d+ ms|\d+ ms", "T ms", stdout)


# commons-compress + xz ----------------------------------------------------------------------

def _compress_prepare(w: Workload, prep: Path) -> List[Path]:
    return _compile_driver(w, BENCH / "workloads/compress/CompressRoundTrip.java")


def _compress_args(prep: Path, run: Path, size: str) -> List[str]:
    return [str(run / "work"), "1", "150000" if size == "large" else "20000", str(JQUERY)]


# Bouncy Castle ------------------------------------------------------------------------------

def _bcprov_prepare(w: Workload, prep: Path) -> List[Path]:
    return _compile_driver(w, BENCH / "workloads/bcprov/CryptoWorkload.java")


def _bcprov_args(prep: Path, run: Path, size: str) -> List[str]:
    if size == "large":
        return [str(JQUERY), "12"]
    return [str(JQUERY), "1", "30000", "2000"]


# JVM languages: their runtimes' and compilers' bytecode comes from compilers other than javac
# (Clojure's, Groovy's, Jython's), and each compiles the workload's script into classes of its
# own at run time, which offline rewriting does not see (the agent does). Correctness checks
# only (bench/check_programs.py); the measurements keep the six programs above.

def _script_args(script: str) -> Callable[[Path, Path, str], List[str]]:
    """SCRIPT (in bench/workloads) over jQuery's source, 3 rounds (small) or 30 (large)."""
    return lambda prep, run, size: [str(BENCH / "workloads" / script), str(JQUERY),
                                    "30" if size == "large" else "3"]


def _scalac_args(prep: Path, run: Path, size: str) -> List[str]:
    (run / "classes").mkdir(exist_ok=True)  # scalac writes only into a directory that exists
    return ["-usejavacp", "-d", str(run / "classes"), str(BENCH / "workloads/scala/Shapes.scala")]


KOTLIN_HOME = Path("/usr/share/kotlin/kotlinc")


def _kotlinc_args(prep: Path, run: Path, size: str) -> List[str]:
    # -kotlin-home: the standard library the compiled file is checked against (an input, never
    # the rewritten one the compiler itself runs on).
    return ["-kotlin-home", str(KOTLIN_HOME), "-d", str(run / "classes"),
            str(BENCH / "workloads/kotlin/Shapes.kt")]


def _compiled_classes_normalise(stdout: str, stderr: str, run: Path) -> str:
    """Every class file a compiler wrote, with its hash; then whatever it printed."""
    out = run / "classes"
    lines = ["%s %s" % (p.relative_to(out), _sha256(p.read_bytes())[:16])
             for p in sorted(out.rglob("*.class"))]
    return "\n".join(lines + ["classes written: %d" % len(lines)]) + "\n" + stdout + stderr


WORKLOADS: Dict[str, Workload] = {w.name: w for w in [
    Workload("h2", "H2 2.1 SQL database, in-memory script with joins and aggregates",
             ["libh2-java"], [SHARE / "h2.jar"], "org.h2.tools.RunScript", _h2_args,
             _keep_stdout, _h2_prepare, classes=1026),
    Workload("ecj", "Eclipse compiler 3.32 compiling BeanShell sources (bsh-src)",
             ["libeclipse-jdt-core-java", "bsh-src"], [SHARE / "eclipse-jdt-core.jar"],
             "org.eclipse.jdt.internal.compiler.batch.Main", _ecj_args, _ecj_normalise,
             _ecj_prepare, classes=2090),
    Workload("rhino", "Rhino 1.7.14 interpreting highlight.js over jQuery",
             ["librhino-java", "libjs-highlight.js", "libjs-jquery"], [SHARE / "js.jar"],
             "org.mozilla.javascript.tools.shell.Main", _rhino_args, _keep_stdout, classes=549,
             jvm_opts=RHINO_JVM_OPTS),
    Workload("xalan", "Xalan 2.7.2 XSLT summarising the freedesktop.org MIME database",
             ["libxalan2-java", "libxerces2-java", "shared-mime-info"],
             [SHARE / "xalan2.jar", SHARE / "serializer.jar", SHARE / "xercesImpl.jar"],
             "org.apache.xalan.xslt.Process", _xalan_args, _xalan_normalise, classes=2670),
    Workload("sunflow", "Sunflow 0.07.2 ray tracer benchmark, 2 threads, 64x64",
             ["libsunflow-java"], [SHARE / "sunflow.jar"], "org.sunflow.Benchmark",
             lambda prep, run, size: ["-bench", "2", "64" if size == "large" else "32"],
             _sunflow_normalise, _sunflow_prepare,
             threads=2, classes=265),
    Workload("xerces", "Xerces 2.12 SAX Counter, 20 parses of the MIME database",
             ["libxerces2-java", "shared-mime-info"],
             [SHARE / "xercesImpl.jar", SHARE / "xercesSamples.jar"], "sax.Counter",
             _xerces_args, _xerces_normalise),
    Workload("compress", "commons-compress 1.22 + xz 1.9 round trips (gz, bzip2, xz, tar, zip, 7z)",
             ["libcommons-compress-java", "libxz-java", "libjs-jquery"],
             [SHARE / "commons-compress.jar", SHARE / "xz.jar"], "CompressRoundTrip",
             _compress_args, _keep_stdout, _compress_prepare, classes=449),
    Workload("bcprov", "Bouncy Castle 1.72 hashing, encrypting and signing jQuery",
             ["libbcprov-java", "libjs-jquery"], [SHARE / "bcprov.jar"], "CryptoWorkload",
             _bcprov_args, _keep_stdout, _bcprov_prepare, classes=4006),
    # spec.alpha first: clojure.jar's manifest names the original spec jars (in
    # /usr/share/maven-repo), which would otherwise come before the rewritten ones.
    Workload("clojure", "Clojure 1.11 tokenising jQuery: persistent maps, protocols, spec",
             ["libclojure-java", "libspec-alpha-clojure", "libcore-specs-alpha-clojure",
              "libjs-jquery"],
             [SHARE / "spec.alpha.jar", SHARE / "core.specs.alpha.jar", SHARE / "clojure.jar"],
             "clojure.main", _script_args("clojure/workload.clj"), _keep_stdout, classes=4087),
    Workload("groovy", "Groovy 2.4 tokenising jQuery: closures, dynamic dispatch",
             ["groovy", "libjs-jquery"], [SHARE / "groovy-all.jar"], "groovy.ui.GroovyMain",
             _script_args("groovy/workload.groovy"), _keep_stdout, classes=4472),
    # python.cachedir.skip: Jython would otherwise write a package cache beside its jar.
    Workload("jython", "Jython 2.7 tokenising jQuery: classes, generators, regular expressions",
             ["jython", "libjs-jquery"], [SHARE / "jython.jar"], "org.python.util.jython",
             _script_args("jython/workload.py"), _keep_stdout, classes=4697,
             jvm_opts=["-Dpython.cachedir.skip=true"]),
    # jruby.home: JRuby's Ruby standard library; compile.mode=FORCE: every Ruby method compiled
    # into JVM classes at once (what the agent then rewrites), not after a threshold.
    Workload("jruby", "JRuby 9.3 tokenising jQuery: modules, blocks, method_missing",
             ["jruby", "libjs-jquery"], [SHARE / "jruby-core.jar"], "org.jruby.Main",
             _script_args("ruby/workload.rb"), _keep_stdout, classes=9178,
             jvm_opts=["-Djruby.home=/usr/share/jruby", "-Djruby.compile.mode=FORCE"]),
    # One size: the compiler's start-up (reading the JDK's classes through jrt:/) is most of a
    # run, about 4 s uninstrumented, 17 s at interval 1.
    Workload("scalac", "Scala 2.11 compiler compiling a file of case classes and implicits",
             ["scala"],
             [SHARE / "scala-library.jar", SHARE / "scala-reflect.jar", SHARE / "scala-compiler.jar"],
             "scala.tools.nsc.Main", _scalac_args, _compiled_classes_normalise, classes=15639),
    # kotlinc's own launcher runs it with -noverify; here every class is verified as usual.
    Workload("kotlinc", "Kotlin 1.3 compiler compiling a file of data classes and lambdas",
             ["kotlin"],
             [KOTLIN_HOME / "lib" / j for j in
              ["kotlin-stdlib.jar", "kotlin-reflect.jar", "kotlin-script-runtime.jar",
               "trove4j.jar", "annotations-13.0.jar", "kotlin-compiler.jar"]],
             "org.jetbrains.kotlin.cli.jvm.K2JVMCompiler", _kotlinc_args,
             _compiled_classes_normalise, classes=25735),
]}


def get(name: str) -> Workload:
    if name not in WORKLOADS:
        raise SystemExit("bench: unknown workload %r (known: %s)" % (name, " ".join(WORKLOADS)))
    return WORKLOADS[name]


def prepare(w: Workload) -> List[Path]:
    """Installs packages and prepares inputs; returns the extra (never rewritten) class path."""
    ensure_packages(w.packages)
    if w.prepare is None:
        return []
    return w.prepare(w, w.prep_dir())


# ---------------------------------------------------------------------------------------------
# Running


@dataclass
class RunResult:
    ok: bool            # exit status 0
    status: int
    output: str         # normalised
    wall: float         # seconds
    cpu: float          # user + system seconds of the JVM process
    stdout: str
    stderr: str
    run_dir: Path
    timed_out: bool = False
    # With repeat: (cpu, wall) seconds of each iteration of main() inside the one JVM.
    iterations: List[Tuple[float, float]] = field(default_factory=list)
    # With repeat: the JIT compilers' seconds during each iteration (approximate).
    jit: List[float] = field(default_factory=list)
    # With repeat: which iterations are measured (all of them for a plain count; with
    # "converge:MAX:MEASURE", those after the JIT settled), and whether it settled.
    measured: List[bool] = field(default_factory=list)
    settled: bool = True

    def measured_cpu(self) -> List[float]:
        """CPU seconds of the measured iterations."""
        return [c for (c, _), m in zip(self.iterations, self.measured) if m]


def classpath(w: Workload, extra: List[Path], jars: Optional[List[Path]] = None) -> str:
    return ":".join(str(p) for p in (jars or w.app_jars) + extra)


_run_counter = [0]


def _repeat_dir() -> Path:
    """The cache's directory for Repeat's classes and CPU clock, made if missing (a fresh cache
    has none)."""
    d = cache_dir() / "repeat"
    d.mkdir(parents=True, exist_ok=True)
    return d


def repeat_classes() -> Path:
    """Compiles bench/workloads/Repeat.java (runs main() N times in one JVM) into the cache."""
    source = BENCH / "workloads" / "Repeat.java"
    out = _repeat_dir() / "classes"
    stamp = out / ".stamp"
    key = _sha256(source.read_bytes())
    if not _stamp_ok(stamp, key):
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        subprocess.run([java_bin("javac"), "-nowarn", "-d", str(out), str(source)], check=True)
        stamp.write_text(key)
    return out


def repeat_cpu_clock() -> Optional[Path]:
    """Compiles bench/workloads/cpu_clock.c (Repeat's CPU clock in nanoseconds) into the cache;
    None, with one line on stderr, where it cannot be built (Repeat then counts clock ticks)."""
    source = BENCH / "workloads" / "cpu_clock.c"
    out = _repeat_dir() / "libcpu_clock.so"
    stamp = out.parent / ".cpu_clock.stamp"
    key = _sha256(source.read_bytes() + str(JAVA_HOME).encode())
    if _stamp_ok(stamp, key) and out.exists():
        return out
    include = JAVA_HOME / "include"
    # Built beside, then renamed: another harness process may be loading the library.
    tmp = out.with_name("%s.%d.tmp" % (out.name, os.getpid()))
    cmd = [os.environ.get("CC", "cc"), "-shared", "-fPIC", "-O2", "-I", str(include),
           "-I", str(include / "linux"), "-o", str(tmp), str(source)]
    try:
        subprocess.run(cmd, check=True, capture_output=True)
        os.replace(tmp, out)
    except (OSError, subprocess.CalledProcessError) as e:
        tmp.unlink(missing_ok=True)
        detail = getattr(e, "stderr", b"") or b""
        print("benchlib: cannot build %s (%s): iteration CPU times in 10 ms ticks" % (
            source.name, detail.decode(errors="replace").strip() or e), file=sys.stderr)
        return None
    stamp.write_text(key)
    return out


def run(w: Workload, extra: List[Path], jars: Optional[List[Path]] = None,
        jvm_opts: Optional[List[str]] = None, keep: bool = False,
        timeout: float = 1800, size: str = "large", repeat=0) -> RunResult:
    """Runs the workload once in a fresh run directory and normalises its output.

    With repeat (a count > 0, or "converge:MAX:MEASURE") the JVM runs main() repeatedly
    (bench/workloads/Repeat.java); the output is the first iteration's, and
    RunResult.iterations has every iteration's times, RunResult.measured the measured ones."""
    _run_counter[0] += 1
    run_dir = cache_dir() / "runs" / ("%s-%d-%d" % (w.name, os.getpid(), _run_counter[0]))
    shutil.rmtree(run_dir, ignore_errors=True)
    run_dir.mkdir(parents=True)
    prep = w.prep_dir()
    cp = classpath(w, extra, jars)
    times_file = run_dir / "iterations.txt"
    if repeat:
        clock = repeat_cpu_clock()
        main = ([":".join([cp, str(repeat_classes())])] +
                (["-Drepeat.cpuclock=%s" % clock] if clock else []) +
                ["Repeat", str(repeat), str(times_file), w.main])
    else:
        main = [cp, w.main]
    cmd = ([java_bin()] + w.jvm_opts + (jvm_opts or []) + ["-cp"] + main +
           w.args(prep, run_dir, size))
    out_path, err_path = run_dir / "stdout.txt", run_dir / "stderr.txt"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=run_dir)
        deadline = t0 + timeout
        timed_out = False
        try:
            while True:
                pid, status, usage = os.wait4(p.pid, os.WNOHANG)
                if pid:
                    break
                if time.monotonic() > deadline:
                    timed_out = True
                    p.kill()
                    pid, status, usage = os.wait4(p.pid, 0)
                    break
                time.sleep(0.01)
        except BaseException:  # interrupted: never leave the JVM behind
            p.kill()
            os.wait4(p.pid, 0)
            raise
        wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    stdout = out_path.read_text(errors="replace")
    stderr = err_path.read_text(errors="replace")
    try:
        output = w.normalise(stdout, stderr, run_dir)
    except Exception as e:  # a broken run may leave no files behind
        output = "(normaliser failed: %s)\n" % e
    (run_dir / "normalised.txt").write_text(output)
    r = RunResult(p.returncode == 0, p.returncode, output, wall,
                  usage.ru_utime + usage.ru_stime, stdout, stderr, run_dir, timed_out)
    if repeat and times_file.exists():
        lines = times_file.read_text().splitlines()
        r.settled = "unsettled" not in lines
        rows = [line.split() for line in lines if line != "unsettled"]
        r.iterations = [(int(f[0]) / 1e9, int(f[1]) / 1e9) for f in rows]
        r.jit = [int(f[2]) / 1e3 if len(f) > 2 else 0.0 for f in rows]
        r.measured = [f[3] == "1" if len(f) > 3 else True for f in rows]
    if not keep:
        shutil.rmtree(run_dir, ignore_errors=True)
    return r


def interleaved_cpu(w: Workload, extra: List[Path], names: List[str], reps: int,
                    run_one: Callable[[str, int], RunResult], size: str,
                    base_opts: Optional[List[str]] = None,
                    seen: Optional[Callable[[str, RunResult], None]] = None
                    ) -> Dict[str, List[float]]:
    """Whole runs side by side: each repetition runs the uninstrumented program ("base", with
    the JVM options `base_opts`) and every configuration in `names` once (`run_one(name,
    repetition)`, which checks its run), in an order shuffled by the repetition's number, so
    that slow drifts of the machine hit all of them alike. Returns the CPU seconds of each, by
    name; `seen(name, result)`, if given, sees every run, the uninstrumented ones as "base"."""
    import random
    cpu = {"base": []}
    cpu.update({n: [] for n in names})
    for rep in range(reps):
        order = [None] + list(names)
        random.Random(rep).shuffle(order)
        for n in order:
            r = run(w, extra, jvm_opts=base_opts, size=size) if n is None else run_one(n, rep)
            cpu[n or "base"].append(r.cpu)
            if seen:
                seen(n or "base", r)
    return cpu


# -XX:+CITime's report, on stderr (-XX:+DisplayVMOutputToStderr) so that the program's output
# stays as it was: the compilers' total time in seconds.
CITIME_OPTS = ["-XX:+UnlockDiagnosticVMOptions", "-XX:+CITime", "-XX:+DisplayVMOutputToStderr"]


def compilation_seconds(stderr: str) -> Optional[float]:
    """The total compilation time a -XX:+CITime run reported, or None."""
    m = re.search(r"Total compilation time\s*:\s*([0-9.]+) s", stderr)
    return float(m.group(1)) if m else None


def compiled_code_bytes(stderr: str) -> Optional[int]:
    """The machine code the JIT compilers installed in the run (-XX:+CITime's "nmethod code
    size": every compilation's code, those later replaced included), or None."""
    m = re.search(r"nmethod code size\s*:\s*([0-9]+) bytes", stderr)
    return int(m.group(1)) if m else None


def compiler_seconds(stderr: str, compiler: str) -> float:
    """One compiler's time ("C1" or "C2": standard and on-stack-replacement compilations) in a
    -XX:+CITime report; 0 when it has no line (a compiler that never ran)."""
    m = re.search(r"^\s*%s \{speed:[^;]*; standard:\s*([0-9.]+) s[^;]*; osr:\s*([0-9.]+) s"
                  % compiler, stderr, re.M)
    return float(m.group(1)) + float(m.group(2)) if m else 0.0


def overhead_cell(times: List[float], base: float) -> str:
    """The median CPU time over `base` as an overhead, with the range: +12.3% (+5%..+20%)."""
    import statistics
    return "%+.1f%% (%+.0f%%..%+.0f%%)" % (100 * (statistics.median(times) / base - 1),
                                            100 * (min(times) / base - 1),
                                            100 * (max(times) / base - 1))


# ---------------------------------------------------------------------------------------------
# duplex


DUPLEX = Path(os.environ.get("DUPLEX", REPO / "build" / "tools" / "duplex"))
RUNTIME_JAR = Path(os.environ.get("DUPLEX_RUNTIME_JAR", REPO / "build" / "runtime" /
                                  "duplex-runtime.jar"))
AGENT_SO = REPO / "build" / "runtime" / "agent" / "libduplexagent.so"


@dataclass
class InstrumentResult:
    jar: Path
    summary: str        # duplex's summary lines
    seconds: float      # rewriting time (0 when reused from the cache)


def instrument(src: Path, dest_dir: Path, mode: str, profile: str,
               extra_args: Optional[List[str]] = None,
               duplex: Optional[Path] = None) -> InstrumentResult:
    """Rewrites one jar, reusing an earlier result made by the same duplex from the same input.
    `duplex`: another duplex binary than this checkout's (to compare two builds)."""
    duplex = duplex or DUPLEX
    dest_dir.mkdir(parents=True, exist_ok=True)
    dest = dest_dir / src.name
    summary_file = dest_dir / (src.name + ".summary")
    key = "%s %s %s %s %d %d" % (mode, profile, " ".join(extra_args or []), src,
                                 src.stat().st_mtime_ns, duplex.stat().st_mtime_ns)
    stamp = dest_dir / (src.name + ".stamp")
    if dest.exists() and _stamp_ok(stamp, key) and summary_file.exists():
        return InstrumentResult(dest, summary_file.read_text(), 0.0)
    cmd = [str(duplex), "instrument", str(src), "-o", str(dest), "--mode", mode]
    if profile:
        cmd += ["--profile", profile]
    cmd += extra_args or []
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    secs = time.monotonic() - t0
    if r.returncode != 0 or not dest.exists():
        raise RuntimeError("duplex instrument failed (%d): %s\n%s" %
                           (r.returncode, " ".join(cmd), r.stderr[-2000:]))
    summary_file.write_text(r.stdout + r.stderr)
    stamp.write_text(key)
    return InstrumentResult(dest, r.stdout + r.stderr, secs)


OLD_VERIFIER_LINE = "Fail over class verification to old verifier for: "


def verify_jar(jar: Path, classpath: str) -> dict:
    """HotSpot verifies every class of `jar` (tests/scripts/verify_dir.sh: -Xverify:all with
    BytecodeVerificationLocal), `classpath` holding its dependencies. "fails": class -> reason,
    "skips": classes with a missing dependency, "old_verifier": classes HotSpot verified with its
    old verifier after the split verifier rejected their StackMapTable frames (a version-50 class
    fails over silently and JDK 17 has no flag to forbid it, so its verification log tells:
    docs/design/hotspot-costs.md, section 11)."""
    with tempfile.TemporaryDirectory() as tmp:
        vlog = Path(tmp) / "verification.log"
        env = dict(os.environ, JAVA_TOOL_OPTIONS="-Xlog:verification=info:file=%s" % vlog)
        r = subprocess.run(["sh", str(REPO / "tests/scripts/verify_dir.sh"), "--cp", classpath,
                            str(jar)], capture_output=True, text=True, env=env)
        lines = vlog.read_text(errors="replace").splitlines() if vlog.exists() else []
    m = re.search(r"verified (\d+) classes, (\d+) failed, (\d+) skipped", r.stdout)
    fails, skips = {}, set()
    for line in r.stdout.splitlines():
        f = re.match(r"(FAIL|SKIP) (\S+?):? (.*)", line)
        if f and f.group(1) == "FAIL":
            fails[f.group(2)] = f.group(3)
        elif f:
            skips.add(f.group(2))
    old = {l.split(OLD_VERIFIER_LINE, 1)[1].strip() for l in lines if OLD_VERIFIER_LINE in l}
    return {"ok": m is not None, "verified": int(m.group(1)) if m else 0,
            "failed": int(m.group(2)) if m else 0, "skipped": int(m.group(3)) if m else 0,
            "fails": fails, "skips": skips, "old_verifier": old, "status": r.returncode,
            "output": r.stdout + r.stderr,
            "fail_lines": [l for l in r.stdout.splitlines() if l.startswith("FAIL")],
            "skip_lines": [l for l in r.stdout.splitlines() if l.startswith("SKIP")]}


def class_bytes(jar: Path) -> int:
    """Total size of the .class entries of a jar (uncompressed), nested jars not included."""
    import zipfile
    with zipfile.ZipFile(jar) as z:
        return sum(i.file_size for i in z.infolist() if i.filename.endswith(".class"))


def code_bytes(jar: Path) -> int:
    """Total bytecode of a jar's classes: the sum of every method's code_length (the Code
    attributes' instructions, without their tables or the constant pool), nested jars not
    included. The paper's growth figure is of code; class bytes also count the pool."""
    import zipfile
    total = 0
    with zipfile.ZipFile(jar) as z:
        for info in z.infolist():
            if info.filename.endswith(".class"):
                total += class_code_bytes(z.read(info))
    return total


# Constant-pool entry sizes after the tag byte (Utf8 is length-prefixed; Long and Double take
# two slots).
CP_SIZES = {3: 4, 4: 4, 5: 8, 6: 8, 7: 2, 8: 2, 9: 4, 10: 4, 11: 4, 12: 4, 15: 3, 16: 2, 17: 4,
             18: 4, 19: 2, 20: 2}


def class_code_bytes(data: bytes) -> int:
    """The sum of code_length over one class file's methods (0 if it cannot be read)."""
    import struct
    try:
        return sum(code for _, _, _, code in class_methods(data)[1])
    except (IndexError, KeyError, struct.error):
        return 0


def class_pool(data: bytes):
    """The constant pool of a class file: ({index: (tag, offset of its payload)}, offset after
    the pool). Raises IndexError, KeyError or struct.error on a malformed class."""
    import struct
    count = struct.unpack_from(">H", data, 8)[0]
    pos, i, entries = 10, 1, {}
    while i < count:
        tag = data[pos]
        entries[i] = (tag, pos + 1)
        pos += 3 + struct.unpack_from(">H", data, pos + 1)[0] if tag == 1 else 1 + CP_SIZES[tag]
        i += 2 if tag in (5, 6) else 1
    return entries, pos


def pool_utf8(data: bytes, entries, index: int) -> bytes:
    """The bytes of the Utf8 entry `index` (class_pool's entries)."""
    import struct
    at = entries[index][1]
    return data[at + 2:at + 2 + struct.unpack_from(">H", data, at)[0]]


def pool_utf8_index(data: bytes, entries, text: bytes) -> Optional[int]:
    """The index of a Utf8 entry holding `text`, or None."""
    return next((i for i, (tag, _) in entries.items()
                 if tag == 1 and pool_utf8(data, entries, i) == text), None)


def class_methods(data: bytes):
    """Where the class's methods_count sits, and each method's (name, start, end, code_length)
    in the class bytes (name: the Utf8 bytes). Raises IndexError, KeyError or struct.error on a
    malformed class."""
    return _methods_after_pool(data, *class_pool(data))


def _methods_after_pool(data: bytes, entries, pos: int):
    """class_methods, given the class's pool as class_pool read it (entries, offset after it)."""
    import struct
    code_name = pool_utf8_index(data, entries, b"Code")
    pos += 6
    pos += 2 + 2 * struct.unpack_from(">H", data, pos)[0]  # interfaces
    for _ in ("fields", "methods"):  # the same layout; the methods' pass is kept
        count_at = pos
        members = struct.unpack_from(">H", data, pos)[0]
        pos += 2
        methods = []
        for _ in range(members):
            start = pos
            name_index = struct.unpack_from(">H", data, pos + 2)[0]
            name = pool_utf8(data, entries, name_index) if entries.get(
                name_index, (0,))[0] == 1 else b""
            attrs = struct.unpack_from(">H", data, pos + 6)[0]
            pos += 8
            code = 0
            for _ in range(attrs):
                attr, length = struct.unpack_from(">HI", data, pos)
                if attr == code_name:
                    code = struct.unpack_from(">I", data, pos + 10)[0]
                pos += 6 + length
            methods.append((name, start, pos, code))
    return count_at, methods


def method_code_sizes(data: bytes):
    """A class file's name and the code length of each of its methods with code:
    (class name, {(method name, descriptor): code_length}). Raises IndexError, KeyError or
    struct.error on a malformed class."""
    import struct
    entries, pos = class_pool(data)

    def text(index: int) -> str:
        return pool_utf8(data, entries, index).decode("utf-8", "replace")

    this_class = struct.unpack_from(">H", data, pos + 2)[0]
    name = text(struct.unpack_from(">H", data, entries[this_class][1])[0])
    sizes = {}
    for _, start, _, code in _methods_after_pool(data, entries, pos)[1]:  # code 0: no Code
        name_index, desc_index = struct.unpack_from(">HH", data, start + 2)
        if code > 0:
            sizes[(text(name_index), text(desc_index))] = code
    return name, sizes


# The input of the steady-state phase (run_bench.py Table S, steady_ab.py): large, except where
# that is too short once compiled (h2) or needlessly long (rhino, seconds per iteration).
STEADY_SIZE = {"rhino": "small", "h2": "xl"}


def steady_size(name: str) -> str:
    return STEADY_SIZE.get(name, "large")


def runtime_beside(duplex: Optional[str]) -> Optional[Path]:
    """The runtime jar of the build that the duplex binary `duplex` (BUILD/tools/duplex) belongs
    to, if that build has one: A/B scripts comparing two builds run each with its own runtime.
    None (this checkout's runtime) without a binary."""
    if not duplex:
        return None
    jar = Path(duplex).resolve().parent.parent / "runtime" / "duplex-runtime.jar"
    return jar if jar.is_file() else None


def runtime_opts(interval: Optional[int] = None, out: Optional[Path] = None,
                 runtime_jar: Optional[Path] = None, **settings) -> List[str]:
    """JVM options for a rewritten program: the runtime (this checkout's unless `runtime_jar`)
    on the boot class path, the interval, the profile's file, and -Dduplex.KEY=VALUE settings."""
    opts = ["-Xbootclasspath/a:" + str(runtime_jar or RUNTIME_JAR)]
    if interval is not None:
        opts.append("-Dduplex.interval=%d" % interval)
    # Never os.devnull: the runtime writes a temporary file next to the target and renames it
    # over the target. A relative name lands in the run directory (the JVM's working directory).
    opts.append("-Dduplex.out=" + str(out if out else "duplex-profile.xml"))
    for k, v in settings.items():
        opts.append("-Dduplex.%s=%s" % (k, v))
    return opts
