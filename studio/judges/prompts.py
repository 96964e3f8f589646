"""Prompt templates of the published methods, kept verbatim in `assets/prompts/NAME/vN/`.

A template folder holds `user.txt`, optionally `system.txt`, and `meta.json` (source, labels,
placeholders). Only the named placeholders (`{query}`, `{passage}`, …) are substituted, so
braces elsewhere in a prompt stay as written.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studio.domain.errors import UsageError
from studio.domain.settings import current_settings
from studio.formats.json_input import loads

PACKAGE_ROOT = Path(__file__).resolve().parents[1]
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
# The names the methods fill in; a template's meta.json may name its own instead.
KNOWN_PLACEHOLDERS = frozenset(
    {
        "query",
        "passage",
        "passage_a",
        "passage_b",
        "question",
        "nugget",
        "subtopic",
        "context",
        "nuggets",
        "num_nuggets",
        "max_nuggets",
        "nuggets_length",
    }
)


def prompts_dir() -> Path:
    """The bundled templates: inside the installed package, or beside it in a checkout."""
    override = current_settings().prompts_dir
    for candidate in ([override] if override else []) + [
        PACKAGE_ROOT / "assets" / "prompts",
        PACKAGE_ROOT.parent / "assets" / "prompts",
    ]:
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("the prompt templates (assets/prompts) are missing")


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    user: str
    system: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def sha256(self) -> str:
        """Identifies the exact text, so a judge run names the prompt it used: sha256 of the
        UTF-8 JSON array `[system, user]` (system `null` when the template has none)."""
        payload = json.dumps([self.system, self.user], ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def placeholders(self) -> set[str]:
        """The named placeholders the text uses (meta.json's list, else KNOWN_PLACEHOLDERS);
        other braces, such as a literal `{json}`, are plain text."""
        named = set(self.meta.get("placeholders") or KNOWN_PLACEHOLDERS)
        found = set(_PLACEHOLDER.findall(self.user)) | set(_PLACEHOLDER.findall(self.system or ""))
        return found & named

    def render(self, **values: str) -> list[tuple[str, str]]:
        """The chat messages: (role, content), system first when the template has one."""
        missing = self.placeholders() - set(values)
        if missing:
            raise UsageError(f"prompt {self.name} needs {', '.join(sorted(missing))}")
        named = {name: values[name] for name in self.placeholders()}
        messages = []
        if self.system is not None:
            messages.append(("system", _fill(self.system, named)))
        messages.append(("user", _fill(self.user, named)))
        return messages


def _fill(text: str, values: dict[str, str]) -> str:
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def load_prompt(name_or_path: str | Path) -> PromptTemplate:
    """A bundled template by name (`umbrela`, `umbrela/v1`) or a custom one by path.

    A custom prompt is a template folder, or a single text file used as the user message.
    """
    path = Path(name_or_path)
    if not path.exists():
        name, _, version = str(name_or_path).partition("/")
        folder = prompts_dir() / name
        if not folder.is_dir():
            known = ", ".join(sorted(p.name for p in prompts_dir().iterdir() if p.is_dir()))
            raise UsageError(f"no prompt named {name!r} (bundled: {known})")
        versions = sorted(
            (p for p in folder.iterdir() if p.is_dir() and re.fullmatch(r"v[0-9]+", p.name)),
            key=lambda p: int(p.name[1:]),
        )
        path = folder / version if version else versions[-1]
        if not path.is_dir():
            raise UsageError(f"prompt {name} has no version {version!r}")
        label = f"{name}/{path.name}"
    else:
        label = str(path)
    if not path.is_dir():
        return PromptTemplate(label, _read_text(path))
    user_file, system_file, meta_file = path / "user.txt", path / "system.txt", path / "meta.json"
    if not user_file.is_file():
        raise UsageError(
            f"prompt folder {path} has no user.txt (the user message; system.txt and meta.json are optional)"
        )
    return PromptTemplate(
        label,
        _read_text(user_file),
        _read_text(system_file) if system_file.exists() else None,
        _read_meta(meta_file) if meta_file.exists() else {},
    )


def _read_text(path: Path) -> str:
    """A prompt file's text; one that cannot be read or is not UTF-8 is refused with its path and why."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise UsageError(f"prompt file {path} is not UTF-8 text (byte {error.start}: {error.reason})") from error
    except OSError as error:
        raise UsageError(f"cannot read prompt file {path}: {error.strerror or error}") from error


def _read_meta(path: Path) -> dict[str, Any]:
    """A template's meta.json: a JSON object, refused with its path and why when it is not one."""
    meta = loads(_read_text(path), str(path))
    if not isinstance(meta, dict):
        raise UsageError(f"{path}: meta.json must hold a JSON object")
    return meta
