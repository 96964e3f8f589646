"""A person's keymap: the keys they give the studio's bindings, read from a TOML file and checked.

The file is `$STUDIO_KEYMAP`, else `$XDG_CONFIG_HOME/studio/keymap.toml` (`~/.config/studio/keymap.toml`
when unset). Each entry names a binding id and its key or keys, as Textual names keys:

    "review.grade2" = "x"
    review.accept = ["enter", "y"]      # a dotted key is the same id
    [app]
    quit = "ctrl+w"

A file that is not TOML, names a binding the studio lacks, gives a key Textual would never send,
or gives a key that another binding has on the same screen is refused whole (InputError: exit 2
from the command line), naming the file, the line and the reason: a keymap half applied would leave
someone pressing keys that do something else than they think.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from studio.domain.errors import InputError
from studio.domain.key_bindings import BINDINGS, LIVE_TOGETHER, RESERVED_KEYS, SCOPES, scope_of
from studio.domain.key_names import KeyNameError, normalize_key
from studio.domain.settings import STUDIO_KEYMAP, Settings, current_settings

KEYMAP_ENV = STUDIO_KEYMAP
# Keys Textual takes for one another (a terminal sends the same bytes for both).
SAME_KEY = {"ctrl+m": "enter", "ctrl+i": "tab"}
_TOML_WHERE = re.compile(r"\s*\(at line (\d+), column (\d+)\)")
_TABLE = re.compile(r"^\s*\[\s*([^\]]+?)\s*\]\s*(#.*)?$")
_ENTRY = re.compile(r"^\s*([^=#\[]+?)\s*=")
_KEY_PART = re.compile(r'"([^"]*)"|\'([^\']*)\'|([A-Za-z0-9_-]+)')


@dataclass(frozen=True)
class EffectiveKeys:
    """The keys one binding answers to now, and whether the keymap file gave them."""

    id: str
    keys: tuple[str, ...]
    default: tuple[str, ...]
    label: str
    where: str
    from_file: bool


@dataclass(frozen=True)
class Keymap:
    """The keys a keymap file gives (binding id -> keys, checked and in Textual's names)."""

    file: Path | None  # the file read; None when there is none
    keys: Mapping[str, tuple[str, ...]]

    def for_textual(self) -> dict[str, str]:
        """As `App.set_keymap` takes it: binding id -> comma-separated keys; empty without a file.

        With a file, every binding is named, not only the file's: Textual moves a remapped binding
        behind the others of its screen, so the footer would show it last, apart from its group
        (`x` away from 0, 1, 3 Grade); naming all keeps their order."""
        if not self.keys:
            return {}
        return {binding_id: ",".join(self.keys_of(binding_id)) for binding_id in BINDINGS}

    def keys_of(self, binding_id: str) -> tuple[str, ...]:
        """The keys a binding answers to: the file's, else its default ones."""
        return self.keys.get(binding_id) or BINDINGS[binding_id].keys

    def effective(self) -> list[EffectiveKeys]:
        """Every binding of the studio with the keys it answers to, in the order of the screens."""
        where = {binding.id: scope.where for scope in SCOPES for binding in scope.bindings}
        return [
            EffectiveKeys(b.id, self.keys_of(b.id), b.keys, b.label, where[b.id], b.id in self.keys)
            for b in BINDINGS.values()
        ]


NO_KEYMAP = Keymap(None, {})


def keymap_path(settings: Settings | None = None) -> Path:
    """$STUDIO_KEYMAP, else $XDG_CONFIG_HOME/studio/keymap.toml (~/.config when it is unset)."""
    return (settings or current_settings()).keymap_path


def load_keymap(settings: Settings | None = None) -> Keymap:
    """The person's keymap, checked; NO_KEYMAP when there is no file (a file $STUDIO_KEYMAP names must exist)."""
    settings = settings or current_settings()
    path = settings.keymap_path
    if not path.exists() and not path.is_symlink():
        if settings.keymap_file is not None:
            raise InputError(str(path), None, f"no such keymap file (${KEYMAP_ENV} names it)")
        return NO_KEYMAP
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(str(path), None, f"not UTF-8 text (byte {error.start})") from None
    except OSError as error:
        raise InputError(str(path), None, f"cannot be read: {error.strerror or error}") from None
    return Keymap(path, parse_keymap(text, str(path)))


def parse_keymap(text: str, file: str) -> dict[str, tuple[str, ...]]:
    """The keys a keymap file's `text` gives, by binding id, in Textual's names; InputError naming
    `file`, the line and the reason for the first thing wrong."""
    import tomllib  # here: every start loads this module, few people have a keymap

    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        where = _TOML_WHERE.search(str(error))
        reason = _TOML_WHERE.sub("", str(error)) + (f" (column {where.group(2)})" if where else "")
        raise InputError(file, int(where.group(1)) if where else None, f"not TOML: {reason}") from None
    lines = entry_lines(text)
    keys: dict[str, tuple[str, ...]] = {}
    for binding_id, value in flatten(document).items():
        line = lines.get(binding_id)
        if binding_id not in BINDINGS:
            raise InputError(file, line, unknown_id(binding_id))
        keys[binding_id] = key_list(binding_id, value, file, line)
    clash = first_clash(keys)
    if clash is not None:
        binding_id, reason = clash
        raise InputError(file, lines.get(binding_id), reason)
    return keys


def flatten(document: Mapping[str, object], prefix: str = "") -> dict[str, object]:
    """Tables and dotted keys joined into binding ids: `[review] accept = …` is `review.accept`."""
    flat: dict[str, object] = {}
    for name, value in document.items():
        if isinstance(value, dict) and f"{prefix}{name}" not in BINDINGS:  # a binding's table is a wrong value
            flat.update(flatten(value, f"{prefix}{name}."))
        else:
            flat[f"{prefix}{name}"] = value
    return flat


def entry_lines(text: str) -> dict[str, int]:
    """The line (1-based) of each entry of a TOML file by its full dotted name, tables followed."""
    table: list[str] = []
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if header := _TABLE.match(line):
            table = _key_parts(header.group(1).strip("[]"))
        elif entry := _ENTRY.match(line):
            lines.setdefault(".".join([*table, *_key_parts(entry.group(1))]), number)
    return lines


def _key_parts(key: str) -> list[str]:
    # findall gives each alternative's group, the ones that did not match empty
    return ["".join(match) for match in _KEY_PART.findall(key)]


def unknown_id(binding_id: str) -> str:
    near = difflib.get_close_matches(binding_id, BINDINGS, n=1)
    hint = f"did you mean {near[0]}?" if near else "docs/tui.md lists the ids"
    return f"{binding_id}: the studio has no binding of that id ({hint})"


def key_list(binding_id: str, value: object, file: str, line: int | None) -> tuple[str, ...]:
    """A binding's keys from a string (commas between keys, as Textual takes them) or a list of strings."""
    if isinstance(value, str):
        written = value.split(",")
    elif isinstance(value, list) and value and all(isinstance(item, str) for item in value):
        written = [key for item in value for key in item.split(",")]
    else:
        raise InputError(file, line, f"{binding_id}: give a key as a string, or several as a list of strings")
    keys: list[str] = []
    for key in written:
        try:
            name = normalize_key(key.strip())
        except KeyNameError as error:
            raise InputError(file, line, f"{binding_id}: {error}") from None
        if name in keys:
            raise InputError(file, line, f"{binding_id}: {name} is given twice")
        if SAME_KEY.get(name, name) in RESERVED_KEYS:
            taken = SAME_KEY.get(name, name)
            raise InputError(file, line, f"{binding_id}: {name} is Textual's own ({taken} {RESERVED_KEYS[taken]})")
        keys.append(name)
    return tuple(keys)


def first_clash(keys: Mapping[str, tuple[str, ...]]) -> tuple[str, str] | None:
    """The first key the file gives a binding that another binding live on the same screen has too:
    (the file's binding id, why); None when every screen's keys are apart."""
    for screen, scopes in LIVE_TOGETHER.items():
        holders: dict[str, list[str]] = {}
        for binding in BINDINGS.values():
            if scope_of(binding.id) in scopes:
                for key in keys.get(binding.id) or binding.keys:
                    holders.setdefault(SAME_KEY.get(key, key), []).append(binding.id)
        for key, ids in holders.items():
            mine = [binding_id for binding_id in ids if binding_id in keys]
            if len(ids) > 1 and mine:
                other = next(binding_id for binding_id in ids if binding_id != mine[0])
                return mine[0], f"{mine[0]}: {key} is also {other}'s key on {screen}; give one of them another key"
    return None
