"""What the installed llama-cpp-python was built with, read from its library without loading a model."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

DISTRIBUTION = "llama-cpp-python"


@dataclass(frozen=True)
class LlamaCppBuild:
    """The version and the build features of the llama.cpp library the local judge runs on."""

    version: str
    gpu_offload: bool | None  # None: this version cannot say
    mmap: bool | None
    mlock: bool | None
    rpc: bool | None
    system_info: str  # llama.cpp's own line: the CPU features it uses, its back ends


def llama_cpp_build() -> LlamaCppBuild:
    """Import llama_cpp (which loads its shared library) and ask it what it supports.

    Raises ImportError or OSError when the package is missing or its library cannot be loaded."""
    import llama_cpp

    version = getattr(llama_cpp, "__version__", None) or importlib.metadata.version(DISTRIBUTION)
    info = _ask(llama_cpp, "llama_print_system_info")
    if isinstance(info, bytes):
        info = info.decode("utf-8", errors="replace")
    return LlamaCppBuild(
        version=str(version),
        gpu_offload=_flag(llama_cpp, "llama_supports_gpu_offload"),
        mmap=_flag(llama_cpp, "llama_supports_mmap"),
        mlock=_flag(llama_cpp, "llama_supports_mlock"),
        rpc=_flag(llama_cpp, "llama_supports_rpc"),
        # llama.cpp ends the line with a separator: "AVX2 = 1 | OPENMP = 1 | "
        system_info=" ".join(str(info or "").split()).strip(" |"),
    )


def _ask(module: Any, function: str) -> Any:
    """What the library's `function` answers, or None when this version has no such function."""
    found: Callable[[], Any] | None = getattr(module, function, None)
    return None if found is None else found()


def _flag(module: Any, function: str) -> bool | None:
    answer = _ask(module, function)
    return None if answer is None else bool(answer)
