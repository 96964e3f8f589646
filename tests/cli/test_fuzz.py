"""Every command of the command line under generated arguments and files: no traceback, ever.

The walk goes over the click tree of `studio` (as studio/cli/reference.py does), so a new command
is fuzzed without editing this file. Each parameter gets values drawn from its declared type
(choices; numbers at, inside and beyond their declared range) and adversarial ones (empty, blank,
very long, control characters and escape codes, non-ASCII digits, `nan`, `inf`, `1_0`, missing
files, paths with pattern characters, folders, devices, a FIFO, files with bad content). Each
example runs on its own copy of the sample project and must end with:

* exit 0, 1 or 2, and a message on stderr whenever it is not 0;
* no "Traceback" in stdout or stderr;
* the project unchanged (every table's row count and digest) when it exits 2 and when the
  command only reads; `Project.check()` passing whenever the command did not succeed;
* no thread or child process left running.

Two examples per command under the `ci` profile, from a fixed seed (tests/hypothesis_profiles.py);
more, freshly drawn: `HYPOTHESIS_PROFILE=thorough` (twenty), or `STUDIO_FUZZ_EXAMPLES=40
HYPOTHESIS_PROFILE=thorough .venv/bin/python -m pytest tests/cli/test_fuzz.py`.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import os
import shutil
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from gates.conftest import Fingerprint, fingerprint
from helpers import cli, copy_project
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from typer.core import TyperArgument, TyperCommand, TyperOption
from typer.testing import CliRunner, Result

from studio import Project
from studio.cli.app import app
from studio.cli.reference import command_tree, commands

REPO = Path(__file__).resolve().parents[2]
MAX_EXAMPLES = int(os.environ.get("STUDIO_FUZZ_EXAMPLES", examples(2)))

# Commands that cannot run here, and why.
LEFT_OUT = {
    "tui": "opens the TUI, which waits for keys until it is quit",
}

# Parameters held to some values: the ones that would open the TUI, load a real model (seconds to
# minutes per example, and the tests load none) or call a server. None: never given.
HELD: dict[tuple[str, str], list[str] | None] = {
    ("demo", "no_tui"): ["--no-tui"],  # the TUI waits for keys
    ("judge", "backend"): ["simulated"],  # llamacpp runs a real model, openai calls a server
    ("sensitivity", "backend"): ["simulated"],
    ("sensitivity run", "backend"): ["simulated"],
    # No simulated backend here: llama.cpp on a file that is no model (drawn from the files).
    ("bank generate", "backend"): ["llamacpp"],
    ("bank nuggetize", "backend"): ["llamacpp"],
    ("report", "with_embeddings"): None,  # the bundled embedding model: seconds to load and run
}
# The method `embedding` runs the bundled embedding model even with the simulated backend.
MODEL_FREE_METHODS = ["umbrela", "binary", "graded", "pairwise", "exam-question", "exam-nugget", "nugget-assign"]
# Parameters always given, from the files: the default would load the bundled model.
ALWAYS_FILES = {("bank generate", "model"), ("bank nuggetize", "model"), ("fd", "model"), ("answers runs", "model")}

# Commands that only read the project: it must be unchanged whatever they answer.
READ_ONLY = {
    "list", "check", "eval", "answers", "correlate", "agree", "disagreements", "history", "compare",
    "estimate", "report", "export qrels", "export judgments", "export graded", "export bank",
    "export leaderboard", "judges list", "judges failures", "judges export-batch", "bank list",
    "bank history", "bank report", "bank stale", "bank cover", "audit list", "audit show",
    "audit pairs", "audit simulate", "init", "sensitivity report", "export prompts",
}  # fmt: skip

# Parameters that name files (the rest of the text parameters name things in the project).
FILE_PARAMETERS = {"files", "file", "path", "out", "export_batch", "import_batch", "prompt", "model", "db"}

# -- values ----------------------------------------------------------------------------------------

ADVERSARIAL_TEXT = [
    "", " ", "\t", "  human  ", "x" * 5000, "a\nb", "a\rb", "\x1b[31mred\x1b[0m", "\x07bell", "\u200bzero-width",
    "\u202eright-to-left", "٣", "３", "nan", "NaN", "inf", "-inf", "1_0", "1e999", "-1", "0", "-0", "+1", "0x10",
    "1e-400", "99999999999999999999999", "-", "--", "--help", "é", "名前", "a b", "a/b", "../x", "%s{}", "'; DROP",
]  # fmt: skip
ADVERSARIAL_NUMBERS = ["nan", "inf", "-inf", "1_0", "٣", "３", "", " 1", "1e999", "0x10", "1.5", "-0", "1e3"]

# Files each example gets (in its folder `in/`), by name: None is a folder, bytes the content.
GZIP = gzip.compress(b"1 0 d1 1\n" * 200)
FILES: dict[str, bytes | None] = {
    "not-utf8.txt": b"1 0 d1 1\n\xff\xfe 0 d2 2\n",
    "truncated.gz": GZIP[: len(GZIP) // 2],
    "nested.jsonl": b'{"qid": "1", "x": ' + b"[" * 5000 + b"]" * 5000 + b"}\n",
    "deep.jsonl": b"[" * 100 + b"]" * 100 + b"\n",
    "huge-numbers.txt": b"1 0 d1 1e999\n1 Q0 d2 99999999999999999999999 1e308 tag\n1 0 d3 -1e-400\n",
    "empty.txt": b"",
    "blank.txt": b" \n\t\n",
    "controls.tsv": b"1\t\x1b[31mred\x07\n\x00\t\x00\n",
    "long-line.txt": b"1 0 " + b"d" * 100_000 + b" 1\n",
    "half-json.jsonl": b'{"qid": "1", "text": "a"}\n{"qid": \n',
    "strings.jsonl": b'{"qid": "1", "docid": "d", "judgment": "NaN", "result_status": 1}\n',
    "nan.jsonl": b'{"qid": NaN, "docid": Infinity, "judgment": 1e999, "result_status": 1}\n',
    "q[1]*?.txt": b"1001 0 d-x 1\n",
    "folder": None,
    "folder/user.txt": b"Query: {query}\n",
}  # fmt: skip
# Well-formed files from sample_data, copied so that no command can write to the repository's.
SAMPLE_FILES = [
    "topics.tsv", "qrels/human.txt", "runs/dense-good.txt", "banks/nuggets.jsonl", "banks/questions.jsonl.gz",
    "responses/answers.jsonl", "judgments/umbrela-smol.jsonl.gz",
]  # fmt: skip
SPECIAL_PATHS = ["{in}/sqlite.db", "{in}/fifo", "{in}/missing.txt", "{in}/nope/missing.txt", "{in}", "/dev/null"]
OUTPUT_PATHS = ["{out}/result.txt", "{out}/result.json.gz", "{out}/report", "-", "/dev/full", "/dev/null", "{in}/fifo"]


def file_paths() -> st.SearchStrategy[str]:
    names = [f"{{in}}/{name}" for name in [*FILES, *(Path(f).name for f in SAMPLE_FILES)]]
    return st.sampled_from([*names, *SPECIAL_PATHS, *OUTPUT_PATHS])


@dataclass(frozen=True)
class Names:
    """What the sample project holds, by kind: the values a command would be given in earnest."""

    by_parameter: dict[str, list[str]]
    everything: list[str]


def project_names(path: Path) -> Names:
    with Project.open(path) as project:
        con = project.db.cursor()

        def column(sql: str) -> list[str]:
            return [str(value) for (value,) in con.execute(sql).fetchall()]

        label_sets = column("SELECT name FROM label_sets ORDER BY name")
        banks = column("SELECT name FROM banks ORDER BY name")
        topics = column("SELECT qid FROM topics ORDER BY qid LIMIT 3")
        docs = column("SELECT docid FROM documents ORDER BY docid LIMIT 3")
        items = column("SELECT item_id FROM bank_items ORDER BY item_id LIMIT 3")
        runs = column("SELECT name FROM runs ORDER BY name LIMIT 2")
    measures = ["nDCG@10", "P@5", "AP(rel=2)", "RR", "nDCG@0", "P@-1", "AP(rel=x)", "Judged@10", "bogus"]
    sets = [*label_sets, "no-such-set"]
    by_parameter = {
        "qrels": sets, "ref": sets, "gold": sets, "source": sets, "llm": sets, "name": [*sets, "fresh", *banks],
        "pool": ["qrels:human", "runs:3", "holes:2", "runs:0", "runs:x", "qrels:no-such-set", "bogus"],
        "bank": [*banks, "no-such-bank"], "qid": topics, "topic": topics, "topics": topics, "docid": docs,
        "item": items, "items": items, "measure": measures, "ref_measure": measures,
        "design": ["topics", "pairs", "bogus"], "strata": ["topic", "grade", "bogus"], "grade": ["0", "1", "3", "2.5"],
        "audit": ["no-such-audit"], "system": runs, "person": ["ana"], "base_url": ["http://127.0.0.1:9/v1"],
        "api_key_env": ["NO_SUCH_KEY_VARIABLE"],
    }  # fmt: skip
    everything = sorted({name for values in by_parameter.values() for name in values})
    return Names(by_parameter, everything)


def numbers(param: TyperArgument | TyperOption) -> st.SearchStrategy[str]:
    """Numbers at, inside and beyond the declared range, and strings that are no number."""
    integer = param.type_descriptor.annotation is int
    low, high = param.min, param.max
    near: list[float] = [0, 1, -1]
    for bound in (low, high):
        if bound is not None:
            near += [bound, bound - 1, bound + 1, bound - 0.001, bound + 0.001]
    if high is None:
        # Far above: only where size costs no time (a count of resamples or trials would run on).
        near += [2**63, 10**20] if param.name in {"seed", "limit", "k", "budget", "folds"} else [7]
    if low is None:
        near += [-(2**63), -(10**20)]
    values = [str(int(v)) if integer else repr(float(v)) for v in near]
    return st.sampled_from(values) | st.sampled_from(ADVERSARIAL_NUMBERS)


def value_strategy(path: str, param: TyperArgument | TyperOption, names: Names) -> st.SearchStrategy[str]:
    descriptor = param.type_descriptor
    name = param.name or ""
    if (path, name) == ("judge", "method"):
        return st.sampled_from(MODEL_FREE_METHODS)
    if descriptor.choices:
        choices = [str(getattr(c, "value", c)) for c in descriptor.choices]
        return st.sampled_from(choices) | st.sampled_from(ADVERSARIAL_TEXT[:8])
    if descriptor.annotation in (int, float):
        return numbers(param)
    if descriptor.annotation is Path or name in FILE_PARAMETERS:
        return file_paths() | st.sampled_from(ADVERSARIAL_TEXT[:4])
    plausible = names.by_parameter.get(name, names.everything)
    return st.sampled_from(plausible) | st.sampled_from(ADVERSARIAL_TEXT) | st.text(max_size=12)


@st.composite
def command_line(draw: st.DrawFn, path: str, command: TyperCommand, names: Names) -> list[str]:
    """Arguments for `studio PATH …`: every required parameter, some optional ones."""
    words: list[str] = []
    for param in command.params:
        if not isinstance(param, TyperArgument | TyperOption):
            raise TypeError(f"{param!r} is not a typer parameter")
        name = param.name or ""
        held = HELD.get((path, name), [])
        if held is None:
            continue
        if isinstance(param, TyperOption) and param.is_flag:
            chosen: bool = draw(st.booleans())
            if held or chosen:
                words.append(held[0] if held else param.opts[0])
            continue
        values = st.sampled_from(held) if held else value_strategy(path, param, names)
        if isinstance(param, TyperArgument):
            count = draw(st.integers(1, 3)) if param.nargs == -1 else 1
            words += [draw(values) for _ in range(count)]
            continue
        given_always = param.required or held or (path, name) in ALWAYS_FILES
        count = 1 if given_always else draw(st.integers(0, 1))
        if param.multiple and count:
            count = draw(st.integers(1, 2))
        for _ in range(count):
            words += [param.opts[0], draw(values)]
    return words


# -- each example's world --------------------------------------------------------------------------


def make_files(folder: Path, template: Path) -> None:
    """The files an example's paths name, fresh for every example (a command may overwrite them)."""
    (folder / "in").mkdir()
    (folder / "out").mkdir()
    for name, content in FILES.items():
        target = folder / "in" / name
        if content is None:
            target.mkdir()
        else:
            target.write_bytes(content)
    for name in SAMPLE_FILES:
        shutil.copyfile(REPO / "sample_data" / name, folder / "in" / Path(name).name)
    with contextlib.closing(sqlite3.connect(folder / "in" / "sqlite.db")) as con:
        con.execute("CREATE TABLE t (a)")
        con.commit()
    os.mkfifo(folder / "in" / "fifo")


class FifoPeer:
    """The other end of the example's FIFO, so a command that opens it neither blocks nor reads
    forever: a command reading it gets a qrels line and the end of the file; one writing it has
    what it writes read and dropped."""

    def __init__(self, fifo: Path) -> None:
        self.fifo = fifo
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, name="fuzz-fifo-peer", daemon=True)

    def __enter__(self) -> FifoPeer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(5)

    def _serve(self) -> None:
        while not self.stop.wait(0.02):
            with contextlib.suppress(OSError):  # ENXIO: no reader waiting
                descriptor = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
                with contextlib.suppress(OSError):
                    os.write(descriptor, b"1001 0 d-x 1\n")
                os.close(descriptor)
                continue
            self._drain()

    def _drain(self) -> None:
        descriptor = os.open(self.fifo, os.O_RDONLY | os.O_NONBLOCK)
        try:
            while not self.stop.is_set():
                try:
                    if not os.read(descriptor, 65536):
                        return  # no writer (any more)
                except BlockingIOError:
                    time.sleep(0.005)  # a writer, with nothing written yet
        finally:
            os.close(descriptor)


def child_processes() -> set[int]:
    """The process ids of this process's children (Linux)."""
    found: set[int] = set()
    for children in Path(f"/proc/{os.getpid()}/task").glob("*/children"):
        found |= {int(pid) for pid in children.read_text().split()}
    return found


def running_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.is_alive()}


def settled(before: set[threading.Thread]) -> set[threading.Thread]:
    """Threads started since `before` and still running after a moment's grace."""
    deadline = time.monotonic() + 2
    while (extra := running_threads() - before) and time.monotonic() < deadline:
        time.sleep(0.02)
    return extra


@dataclass(frozen=True)
class Template:
    path: Path
    fingerprint: Fingerprint
    digest: str
    names: Names


def file_digest(path: Path) -> str:
    """sha256 of the project file and of its log, if any."""
    digest = hashlib.sha256(path.read_bytes())
    log = Path(f"{path}.wal")
    if log.exists():
        digest.update(log.read_bytes())
    return digest.hexdigest()


def checked(path: Path) -> bool:
    """Whether `Project.check()` (what `studio check` runs) finds the project sound."""
    with Project.open(path) as project:
        return project.check().ok


@pytest.fixture(scope="session")
def fuzz_template(simulated_sample_template: Path) -> Template:
    """The sample project with a simulated judge (`sim`): its fingerprint, digest and names."""
    path = simulated_sample_template
    assert checked(path)
    return Template(path, fingerprint(path), file_digest(path), project_names(path))


def probe_safe(names: Names, template: Path) -> Names:
    """Names for `probe`: it reruns the judge of each label set, so none made by a real model."""
    with Project.open(template) as project:
        real = {
            str(name)
            for (name,) in project.db.cursor()
            .execute(
                "SELECT l.name FROM judge_runs j JOIN label_sets l USING (label_set_id) WHERE j.backend <> 'simulated'"
            )
            .fetchall()
        }
    return Names(
        {**names.by_parameter, "qrels": [n for n in names.by_parameter["qrels"] if n not in real]}, names.everything
    )


# The command tree, built once (typer builds it afresh for every invocation: half a second each).
TREE = command_tree()
FUZZED = [
    (path.removeprefix("studio "), command)
    for path, command in commands(TREE)
    if isinstance(command, TyperCommand) and path.removeprefix("studio ") not in LEFT_OUT
]


def invoke(project: Path, args: list[str], env: dict[str, str | None]) -> Result:
    """`studio --db PROJECT ARGS…` in-process, as tests/helpers.py's `cli` runs it, on TREE."""
    with mock.patch("typer.testing._get_command", lambda _app: TREE):
        return CliRunner().invoke(app, ["--db", str(project), *args], env=env, catch_exceptions=True)


@contextlib.contextmanager
def working_folder(folder: Path) -> Iterator[None]:
    """Relative paths (a name drawn as a file, the default project) land in the example's folder."""
    previous = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(previous)


def resolved(words: list[str], folder: Path) -> list[str]:
    return [w.replace("{in}", str(folder / "in")).replace("{out}", str(folder / "out")) for w in words]


def run_example(template: Template, path: str, words: list[str], tmp_root: Path) -> None:
    folder = Path(tmp_root) / f"example-{time.monotonic_ns()}"
    folder.mkdir()
    make_files(folder, template.path)
    project = copy_project(template.path, folder)
    args = [*path.split(), *resolved(words, folder)]
    env = {"HOME": str(folder), "XDG_DATA_HOME": str(folder / "data"), "STUDIO_DB": None, "OPENAI_API_KEY": None}
    env |= {"OPENAI_BASE_URL": None, "COLUMNS": "100", "NO_COLOR": "1", "STUDIO_SAMPLE_DATA": None}
    threads, children = running_threads(), child_processes()
    with working_folder(folder), FifoPeer(folder / "in" / "fifo"):
        result = invoke(project, args, env)
    shown = f"studio {' '.join(map(repr, args))}\nexit {result.exit_code}\nstdout:\n{result.stdout[:2000]}"
    shown += f"\nstderr:\n{result.stderr[:2000]}"
    error = result.exception
    if error is not None and not isinstance(error, SystemExit):
        raise AssertionError(f"uncaught {type(error).__name__}: {error}\n{shown}") from error
    assert result.exit_code in {0, 1, 2}, shown
    assert "Traceback" not in result.stdout and "Traceback" not in result.stderr, shown
    if result.exit_code != 0:
        assert result.stderr.strip(), f"no message on stderr\n{shown}"
    # The file's bytes first: unchanged bytes are unchanged tables (and the template passes check).
    untouched = file_digest(project) == template.digest
    if (result.exit_code == 2 or path in READ_ONLY) and not untouched:
        assert fingerprint(project) == template.fingerprint, f"the project changed\n{shown}"
    if result.exit_code != 0 and not untouched:
        assert checked(project), f"check fails after the command\n{shown}"
    assert not settled(threads), f"threads left running: {settled(threads)}\n{shown}"
    assert child_processes() <= children, f"processes left running\n{shown}"
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize(("path", "command"), FUZZED, ids=[path for path, _ in FUZZED])
def test_no_command_ends_in_a_traceback(
    path: str, command: TyperCommand, fuzz_template: Template, tmp_path_factory: pytest.TempPathFactory
) -> None:
    names = probe_safe(fuzz_template.names, fuzz_template.path) if path == "probe" else fuzz_template.names
    tmp_root = tmp_path_factory.mktemp("fuzz")

    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
    )
    @given(words=command_line(path, command, names))
    def check(words: list[str]) -> None:
        run_example(fuzz_template, path, words, tmp_root)

    check()


def test_every_command_is_fuzzed_but_the_ones_left_out() -> None:
    everything = {p.removeprefix("studio ") for p, c in commands(command_tree()) if isinstance(c, TyperCommand)}
    assert {path for path, _ in FUZZED} == everything - set(LEFT_OUT)
    assert set(LEFT_OUT) <= everything, "a command left out that the tree no longer has"


# -- every number declares its range -----------------------------------------------------------------

# Numeric options (and arguments) without a declared range, and why any value is meaningful (or refused by the
# command in its own words).
THRESHOLD = "a grade threshold: label sets hold any finite grade (fractional, negative), see docs/formats.md"
UNBOUNDED: dict[str, str] = {
    "--seed": "any integer seeds the random generator",
    "--relevant": THRESHOLD,
    "--threshold": THRESHOLD,
    "--ref-threshold": THRESHOLD,
    "--min-grade": THRESHOLD,
    "--llm-relevant": THRESHOLD,
    "--ref-relevant": THRESHOLD,
    "--binarise-ref": THRESHOLD,
    "grade": "a grade (an argument): label sets hold any finite grade, see docs/formats.md",
}


def numeric_parameters() -> Iterator[tuple[str, Any]]:
    for path, command in commands(TREE):
        for param in command.params:
            if isinstance(param, TyperArgument | TyperOption) and param.type_descriptor.annotation in (int, float):
                yield path, param


def test_every_numeric_option_declares_its_range() -> None:
    missing = [
        f"{path} {param.opts[0]}"
        for path, param in numeric_parameters()
        if param.min is None and param.max is None and param.opts[0] not in UNBOUNDED
    ]
    assert not missing, f"numeric options without a range (declare min/max, or say why in UNBOUNDED): {missing}"


@pytest.mark.parametrize("option", ["--temperature", "--timeout", "--price-input", "--price-output"])
def test_judge_refuses_a_negative_temperature_timeout_or_price(sample: Path, option: str) -> None:
    before = fingerprint(sample)
    result = cli(sample, "judge", "--backend", "simulated", "--name", "negative", option, "-0.5")
    assert result.exit_code == 2, result.output
    assert f"Invalid value for '{option}'" in result.stderr and "Traceback" not in result.output
    assert fingerprint(sample) == before
