"""The rules for names and ids, checked wherever one enters the project.

* Names (label sets, runs, banks, audits, answering systems) are shown in tables, terminals,
  reports and file names: printable (no control characters, no line breaks, no invisible
  formatting characters, no blank but the ASCII space), not empty, no blanks around them, and at
  most `MAX_NAME_LENGTH` characters (the report's figure file names embed them).
* A name is stored in Unicode's composed form (NFC), whichever form it was typed or written in
  (`café` typed as `e` and a combining accent is the `café` of a precomposed `é`), and a new name
  that reads the same as an existing one of its kind once case, width and compatibility forms are
  set aside (NFKC and case folding: `Human`, `ｈｕｍａｎ` and `human`) is refused, naming the
  existing one: two such names would look alike in every listing.
* Some names also become folder and file names or stand beside the studio's own rows, and keep to
  more (`PATH_NAMES`): a prompt id, a study, a campaign, an assessor, a group, a team member hold
  no path separator (`/`, `\\`) and are not `.` or `..` (`export prompts --folder` writes a folder
  per prompt id, a study's label sets are named after it), and none is a word the studio keeps
  for itself (`RESERVED`: a group named `reference` would stand among the prompt-study report's
  reference rows; a campaign named `X-recall` would be campaign X's recall sample).
* Ids (qids, docids) are columns of whitespace-separated TREC files: not empty, and no whitespace
  or control characters anywhere in them (a qrels file written with such an id could not be read
  back), and at most `MAX_ID_BYTES` bytes of UTF-8: TREC ids are short (`D1555982`,
  `msmarco_v2.1_doc_00_0#3_1234`, a ClueWeb22 id of 25 characters, a UUID of 36), and even a
  URL used as an id rarely passes a few hundred bytes, while a file of one huge "id" would be
  stored, indexed and printed everywhere.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from studio.domain.errors import UsageError, quoted

MAX_NAME_LENGTH = 100
MAX_ID_BYTES = 512
PATH_NAMES = frozenset({"prompt id", "study", "campaign", "assessor", "group", "member"})
SEPARATORS = ("/", "\\")
RESERVED: dict[str, frozenset[str]] = {"group": frozenset({"reference"})}
RESERVED_SUFFIXES: dict[str, str] = {"campaign": "-recall"}  # domain.campaigns.RECALL_SUFFIX


def _character(char: str) -> str:
    """A character a person can identify in a message, whatever it is."""
    category = unicodedata.category(char)
    code = f"U+{ord(char):04X}"
    if char in "\n\r\u2028\u2029\x85":
        return f"a line break ({code})"
    if category == "Cc":
        return f"a control character ({code})"
    if char.isspace():
        return f"a blank ({code})"
    if category == "Cf":
        return f"an invisible formatting character ({code})"
    return f"an unprintable character ({code})"


def name_problem(name: str, what: str | None = None) -> str | None:
    """What is wrong with `name` as a name (of the kind `what`: a kind in `PATH_NAMES` keeps to
    their rules too), as the end of a sentence naming it; None when nothing."""
    problem = _text_problem(name)
    if problem is None and what in PATH_NAMES:
        problem = _path_problem(name, what)
    return problem


def _path_problem(name: str, what: str) -> str | None:
    separator = next((s for s in SEPARATORS if s in name), None)
    if separator is not None:
        return f"holds {separator!r}, a path separator ({what}s name folders and files)"
    if name in (".", ".."):
        return f"is {name!r}, a folder's own name"
    if unicodedata.normalize("NFKC", name).casefold() in RESERVED.get(what, frozenset()):
        return f"is a word the studio keeps for itself (its reports' {name.casefold()} rows)"
    suffix = RESERVED_SUFFIXES.get(what)
    if suffix is not None and name.casefold().endswith(suffix):
        return f"ends in {suffix!r}, which names a {what}'s recall sample"
    return None


def _text_problem(name: str) -> str | None:
    if not name.strip():
        return "is empty" if not name else "is blank"
    odd = next((char for char in name if not char.isprintable()), None)
    if odd is not None:
        return f"holds {_character(odd)}"
    if name != name.strip():
        return "has blanks around it"
    if len(name) > MAX_NAME_LENGTH:
        return f"is {len(name)} characters long (at most {MAX_NAME_LENGTH})"
    return None


def id_problem(value: str) -> str | None:
    """What is wrong with `value` as a qid or docid, as the end of a sentence naming it; None when
    nothing."""
    # UTF-8 takes at most 4 bytes a character: only a long id needs encoding to be measured.
    if len(value) > MAX_ID_BYTES // 4 and (size := len(value.encode("utf-8", "surrogatepass"))) > MAX_ID_BYTES:
        return f"is {size} bytes long (at most {MAX_ID_BYTES})"
    if value.isprintable() and " " not in value:  # the common case, at C speed
        return None if value else "is empty"
    odd = next((char for char in value if char.isspace() or unicodedata.category(char) == "Cc"), None)
    if odd is not None:
        return f"holds {_character(odd)}"
    return None


def check_name(name: str, what: str) -> str:
    """`name` in its composed form (NFC) when it is a valid name; otherwise a `UsageError` naming
    `what` it names (a label set, a run, …) and what is wrong."""
    problem = name_problem(name, what)
    if problem is not None:
        raise UsageError(f"{what} name {quoted(name)} {problem}")
    return composed(name)


def composed(name: str) -> str:
    """The name as it is stored: Unicode's composed form (NFC)."""
    return unicodedata.normalize("NFC", name)


def look_alike_key(name: str) -> str:
    """What a name reads as, whatever its case, width and compatibility forms (NFKC, case folded):
    names with the same key look the same in a listing."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def look_alike(name: str, existing: Iterable[str]) -> str | None:
    """The first of the `existing` names that reads the same as `name` (`look_alike_key`); None
    when none does."""
    key = look_alike_key(name)
    return next((other for other in existing if look_alike_key(other) == key), None)


def check_new_name(name: str, what: str, existing: Iterable[str]) -> str:
    """`name` (composed) for a new `what` when no `existing` name of its kind looks like it;
    otherwise a `UsageError` naming the existing one."""
    name = composed(name)
    other = look_alike(name, existing)
    if other is not None:
        said = "already exists" if other == name else f"looks the same as the existing {what} {quoted(other)}"
        raise UsageError(
            f"{what} name {quoted(name)} {said} (names are compared whatever their case, width and"
            f" accent encoding); use {quoted(other)} itself, or a name that reads differently"
        )
    return name


def check_id(value: str, what: str) -> str:
    """`value` when it is a valid id; otherwise a `UsageError` naming `what` (qid, docid)."""
    problem = id_problem(value)
    if problem is not None:
        raise UsageError(f"{what} {quoted(value)} {problem}")
    return value
