"""Every environment variable the studio reads, in one place (docs/project.md#environment-variables).

`VARIABLES` names each one with what it sets; `Settings` holds their values, typed, read from the
environment by `current_settings()`. Nothing else in the studio reads `os.environ`
(tests/test_settings.py checks): a module asks for the settings, the command line declares an
option's variable by its name here (`envvar=STUDIO_DB`), and the libraries the studio configures
are set through `set_for_libraries`.

Secrets are the exception that proves the rule: an API key is read by `read_secret` when the
backend that sends it starts, and is never a field of `Settings`, whose repr may be printed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

STUDIO_DB = "STUDIO_DB"
STUDIO_WAIT = "STUDIO_WAIT"
STUDIO_READ_ONLY = "STUDIO_READ_ONLY"
STUDIO_PERSON = "STUDIO_PERSON"
STUDIO_ASSESSOR = "STUDIO_ASSESSOR"
STUDIO_KEYMAP = "STUDIO_KEYMAP"
STUDIO_PROMPTS = "STUDIO_PROMPTS"
STUDIO_SAMPLE_DATA = "STUDIO_SAMPLE_DATA"
XDG_DATA_HOME = "XDG_DATA_HOME"
XDG_CONFIG_HOME = "XDG_CONFIG_HOME"
OPENAI_API_KEY = "OPENAI_API_KEY"
OPENAI_BASE_URL = "OPENAI_BASE_URL"
IR_DATASETS_HOME = "IR_DATASETS_HOME"


@dataclass(frozen=True)
class Variable:
    """An environment variable: its name, what it sets, and what reads it."""

    name: str
    sets: str
    read_by: str


# The table of docs/project.md, in its order (tests/test_settings.py compares the two).
VARIABLES: tuple[Variable, ...] = (
    Variable(
        STUDIO_DB, "The project file when `--db` is not given (else `./studio.duckdb`).", "`--db`, `Project.open`"
    ),
    Variable(
        STUDIO_WAIT, "Seconds to wait for the project file while another process writes (default 30).", "`--wait`"
    ),
    Variable(STUDIO_READ_ONLY, "Open the project file read-only: writes are refused (`1`, `true`).", "`--read-only`"),
    Variable(
        STUDIO_PERSON,
        "Who edits, reviews and grades (default: the team role, else the login name).",
        "`--person` of `tui`, `label`, `bank`, `audit adjudicate`; the TUI",
    ),
    Variable(STUDIO_ASSESSOR, "Who grades a blind audit, when `STUDIO_PERSON` is not set.", "`tui --assessor`"),
    Variable(
        STUDIO_KEYMAP,
        "The keymap file (else `$XDG_CONFIG_HOME/studio/keymap.toml`); a file it names must exist.",
        "the TUI, `studio doctor`",
    ),
    Variable(STUDIO_PROMPTS, "A folder of prompt templates used instead of the bundled ones.", "the judges"),
    Variable(STUDIO_SAMPLE_DATA, "A folder of sample data used instead of the bundled one.", "`studio demo`"),
    Variable(XDG_DATA_HOME, "Where the demo project lives (`$XDG_DATA_HOME/studio`, else `~/.local/share`).", "`demo`"),
    Variable(XDG_CONFIG_HOME, "Where the keymap file is looked for (else `~/.config`).", "the TUI, `studio doctor`"),
    Variable(
        OPENAI_API_KEY,
        "The API key of `--backend openai` (another variable with `--api-key-env`); never stored or printed.",
        "the API backend, `studio doctor` (set or not)",
    ),
    Variable(
        OPENAI_BASE_URL,
        "The API server when `--base-url` is not given (else OpenAI's); one holding a credential is refused.",
        "the API backend, `studio doctor`",
    ),
    Variable(IR_DATASETS_HOME, "ir_datasets' cache, named when data is missing from it.", "`studio import irds`"),
)

# Set by the studio, for the libraries it drives, before they are imported (docs/project.md has why).
LIBRARY_VARIABLES: tuple[Variable, ...] = (
    Variable("OMP_WAIT_POLICY", "`PASSIVE` unless set: OpenMP threads wait without spinning.", "llama.cpp"),
    Variable("HF_HUB_OFFLINE", "`1`: a local model folder never reaches the network.", "sentence-transformers"),
    Variable("TRANSFORMERS_OFFLINE", "`1`, as above.", "sentence-transformers"),
    Variable("HF_HUB_DISABLE_PROGRESS_BARS", "`1` unless set: no bar drawn over the TUI.", "sentence-transformers"),
)


# The field of Settings each variable sets; the rest of VARIABLES are read by the command line's
# parser from the options that declare them (`--wait`, `--read-only`), where its errors name them.
FIELDS: dict[str, str] = {
    "project_file": STUDIO_DB,
    "person": STUDIO_PERSON,
    "assessor": STUDIO_ASSESSOR,
    "keymap_file": STUDIO_KEYMAP,
    "prompts_dir": STUDIO_PROMPTS,
    "sample_data_dir": STUDIO_SAMPLE_DATA,
    "data_home": XDG_DATA_HOME,
    "config_home": XDG_CONFIG_HOME,
    "openai_base_url": OPENAI_BASE_URL,
    "openai_api_key_set": OPENAI_API_KEY,
    "ir_datasets_home": IR_DATASETS_HOME,
}
OPTIONS_ONLY = (STUDIO_WAIT, STUDIO_READ_ONLY)


def _path(value: str | None) -> Path | None:
    return Path(value) if value else None


def _text(value: str | None) -> str | None:
    return value or None


@dataclass(frozen=True)
class Settings:
    """The environment's settings, typed. An empty variable counts as unset."""

    project_file: Path | None = None  # STUDIO_DB
    person: str | None = None  # STUDIO_PERSON
    assessor: str | None = None  # STUDIO_ASSESSOR
    keymap_file: Path | None = None  # STUDIO_KEYMAP
    prompts_dir: Path | None = None  # STUDIO_PROMPTS
    sample_data_dir: Path | None = None  # STUDIO_SAMPLE_DATA
    data_home: Path | None = None  # XDG_DATA_HOME
    config_home: Path | None = None  # XDG_CONFIG_HOME
    openai_base_url: str | None = None  # OPENAI_BASE_URL (a URL: the doctor and the backend refuse one with a secret)
    openai_api_key_set: bool = False  # OPENAI_API_KEY is set: whether, never what
    ir_datasets_home: Path | None = None  # IR_DATASETS_HOME

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Settings:
        """The settings `environ` holds; a variable not named in VARIABLES is never looked at."""
        get = environ.get
        return cls(
            project_file=_path(get(STUDIO_DB)),
            person=_text(get(STUDIO_PERSON)),
            assessor=_text(get(STUDIO_ASSESSOR)),
            keymap_file=_path(get(STUDIO_KEYMAP)),
            prompts_dir=_path(get(STUDIO_PROMPTS)),
            sample_data_dir=_path(get(STUDIO_SAMPLE_DATA)),
            data_home=_path(get(XDG_DATA_HOME)),
            config_home=_path(get(XDG_CONFIG_HOME)),
            openai_base_url=_text(get(OPENAI_BASE_URL)),
            openai_api_key_set=bool(get(OPENAI_API_KEY)),
            ir_datasets_home=_path(get(IR_DATASETS_HOME)),
        )

    @property
    def user_data_dir(self) -> Path:
        """$XDG_DATA_HOME/studio (~/.local/share/studio when unset)."""
        return (self.data_home or Path.home() / ".local" / "share") / "studio"

    @property
    def keymap_path(self) -> Path:
        """$STUDIO_KEYMAP, else $XDG_CONFIG_HOME/studio/keymap.toml (~/.config when it is unset)."""
        return self.keymap_file or (self.config_home or Path.home() / ".config") / "studio" / "keymap.toml"


def current_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """The settings of this process's environment now (or of `environ`). Read afresh on every call:
    a dozen lookups, and a variable set while the process runs (a test's, a script's) counts."""
    return Settings.from_environ(os.environ if environ is None else environ)


def read_secret(name: str) -> str | None:
    """The value of the secret-bearing variable `name` (an API key), None when unset or empty.
    The caller keeps it to itself: never stored, logged or printed."""
    return os.environ.get(name) or None


def set_for_libraries(name: str, value: str, *, keep_existing: bool) -> None:
    """Set one of LIBRARY_VARIABLES for the libraries read it when first imported; with
    `keep_existing`, a value the person set wins."""
    if name not in {v.name for v in LIBRARY_VARIABLES}:
        raise ValueError(f"{name} is not a variable the studio sets (LIBRARY_VARIABLES)")
    if keep_existing:
        os.environ.setdefault(name, value)
    else:
        os.environ[name] = value
