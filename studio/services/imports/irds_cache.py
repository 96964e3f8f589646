"""ir_datasets, as an optional dependency that reads its local cache and never downloads.

ir_datasets fetches a dataset's files the first time a handler needs them. An import must not
reach the network, so while the studio reads a dataset every way ir_datasets has to download is
refused (`no_downloads`): a `Download` whose cache file is absent, and the streams of its remote
sources. The refusal names what to fetch (the cache file and the address ir_datasets would take
it from, and the `ir_datasets export` command that fetches it), so the person can fetch it and
import again.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from studio.domain.errors import UsageError
from studio.domain.settings import current_settings

EXTRA = "irds"
INSTALL_HINT = f"pip install 'relevance-assessment-studio[{EXTRA}]'"


@dataclass(frozen=True)
class MissingFile:
    """A file ir_datasets would download: where it keeps it and where it would fetch it from."""

    path: str
    sources: tuple[str, ...]

    def describe(self) -> str:
        return self.path + (f" (from {', '.join(self.sources)})" if self.sources else "")


# A plain Exception, not a StudioError: it never reaches a person; the import turns it into one.
class NotCached(Exception):
    """ir_datasets was about to download `missing` (or found a local file absent)."""

    def __init__(self, missing: MissingFile) -> None:
        super().__init__(missing.describe())
        self.missing = missing


def load_ir_datasets() -> Any:
    """The `ir_datasets` module, or a `UsageError` naming the extra that installs it."""
    try:
        return importlib.import_module("ir_datasets")
    except ImportError as error:
        raise UsageError(
            f"studio import irds needs the ir_datasets package, which is not installed ({error});"
            f" install the studio's [{EXTRA}] extra: {INSTALL_HINT}"
        ) from None


def load_dataset(irds: Any, dataset_id: str) -> Any:
    """The registered dataset `dataset_id`, or a `UsageError` saying it is unknown."""
    try:
        return irds.load(dataset_id)
    except KeyError:
        raise UsageError(
            f"ir_datasets knows no dataset {dataset_id!r} (its ids look like msmarco-passage/trec-dl-2019/judged)"
        ) from None


def _sources(download: Any) -> tuple[str, ...]:
    return tuple(str(m.url) for m in getattr(download, "mirrors", []) if isinstance(getattr(m, "url", None), str))


def _missing(download: Any) -> MissingFile:
    return MissingFile(str(getattr(download, "_cache_path", None) or "(a temporary file)"), _sources(download))


def _cached_at(irds: Any, node: Any) -> str | None:
    """Where a caching or extracting step keeps its result (None for other nodes)."""
    util = irds.util
    if isinstance(node, util.Cache):
        return str(node._path)
    if isinstance(node, util.TarExtractAll):
        return str(node._extract_path)
    if isinstance(node, util.ZipExtractCache):
        return str(node.extract_path)
    return None


def _children(node: Any) -> list[Any]:
    if isinstance(node, list | tuple | set | frozenset):
        return list(node)
    if isinstance(node, dict):
        return list(node.values())
    if type(node).__module__.startswith("ir_datasets") and hasattr(node, "__dict__"):
        return list(vars(node).values())
    return []


def missing_files(irds: Any, root: Any) -> list[MissingFile]:
    """Every file of `root` (a dataset or handler) that ir_datasets would have to download: a
    download whose cache file is absent, named by the file ir_datasets keeps its result in (a
    cached or extracted copy present needs no download). Handlers built lazily hide theirs; the
    guard still catches those."""
    found: set[MissingFile] = set()
    seen: set[int] = set()

    def downloads_under(node: Any) -> list[Any]:
        stack, below = [node], []
        while stack:
            current = stack.pop()
            if isinstance(current, irds.util.Download):
                below.append(current)
            else:
                stack.extend(_children(current))
        return below

    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        kept = _cached_at(irds, node)
        if kept is not None:
            if not os.path.exists(kept):
                sources = tuple(url for download in downloads_under(node) for url in _sources(download))
                found.add(MissingFile(kept, sources))
            continue
        if isinstance(node, irds.util.Download):
            cache = getattr(node, "_cache_path", None)
            if cache is None or not os.path.exists(cache):
                found.add(_missing(node))
            continue
        stack.extend(_children(node))
    return sorted(found, key=lambda m: m.path)


@contextmanager
def no_downloads(irds: Any) -> Iterator[None]:
    """Within the block ir_datasets reads only what it has: a download from any source is refused
    with `NotCached`, and so is a local file ir_datasets expects but does not find."""
    download = irds.util.download
    local = download.LocalDownload
    remote = [cls for cls in download.BaseDownload.__subclasses__() if cls is not local]
    saved: list[tuple[type, str, Any]] = [(download.Download, "path", download.Download.path)]
    saved += [(cls, "stream", cls.__dict__["stream"]) for cls in remote if "stream" in cls.__dict__]
    saved += [(cls, "__iter__", cls.__dict__["__iter__"]) for cls in remote if "__iter__" in cls.__dict__]
    saved.append((local, "path", local.path))
    original_path = download.Download.path
    original_local = local.path

    def cached_path(self: Any, force: bool = True) -> Any:
        cache = getattr(self, "_cache_path", None)
        if getattr(self, "_path", None) is not None or (
            cache is not None and (not force or (cache != os.devnull and os.path.exists(cache)))
        ):
            return original_path(self, force)
        raise NotCached(_missing(self))

    def refuse_remote(self: Any, *args: Any, **kwargs: Any) -> Any:
        url = getattr(self, "url", None)
        raise NotCached(MissingFile("(streamed)", (str(url),) if url else ()))

    def local_path(self: Any, force: bool = True) -> Any:
        try:
            return original_local(self, force)
        except FileNotFoundError as error:
            raise NotCached(MissingFile(str(error.args[0] if error.args else error), ())) from None

    download.Download.path = cached_path
    local.path = local_path
    for cls in remote:
        if "stream" in cls.__dict__:
            cls.stream = refuse_remote
        if "__iter__" in cls.__dict__:
            cls.__iter__ = refuse_remote
    try:
        yield
    finally:
        for cls, attribute, value in saved:
            setattr(cls, attribute, value)


def not_cached_error(irds: Any, dataset: Any, dataset_id: str, stopped: NotCached) -> UsageError:
    """The refusal of an import whose data is not in the cache: every file missing, and how to
    fetch them."""
    parts = [part for part in ("queries", "qrels", "docs") if getattr(dataset, f"has_{part}")()]
    # Only the handlers the import reads: a dataset's other files (its baseline runs) are not needed.
    missing = missing_files(irds, [getattr(dataset, f"{part}_handler")() for part in parts])
    if stopped.missing not in missing:
        missing.insert(0, stopped.missing)
    shown = "; ".join(m.describe() for m in missing[:5]) + (
        f"; and {len(missing) - 5} more" if len(missing) > 5 else ""
    )
    home = current_settings().ir_datasets_home or os.path.join("~", ".ir_datasets")
    fetch = " and ".join(f"`ir_datasets export {dataset_id} {part} > /dev/null`" for part in parts)
    return UsageError(
        f"ir_datasets has not got the data of {dataset_id!r} in its cache ({home}) and the import downloads"
        f" nothing. Missing: {shown}. Fetch it with {fetch} (or put the files where ir_datasets looks),"
        " then import again"
    )
