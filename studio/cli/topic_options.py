"""What the topic options (`--topics common|own`, `--topic QID`, `--topics-file FILE`, declared in
`cli/options.py`) choose, and how a command says which topics it stood on."""

from __future__ import annotations

from pathlib import Path

from studio.cli.output import OutputFormat, stderr_console
from studio.domain.frames import FrameJson, TopicChoice, TopicScope, frame_line, frame_warnings
from studio.services.project import Project


def topic_choice(
    topic: list[str] | None, topics_file: Path | None, scope: TopicScope = TopicScope.common
) -> TopicChoice:
    """What the options ask for: every topic unless --topic or --topics-file names some."""
    return Project.choose_topics(scope, topic or (), topics_file)


def framed_title(title: str, frame: FrameJson | None, fmt: OutputFormat) -> str:
    """A table's title with the frame's line under it (other formats carry the frame in their data)."""
    return f"{title}\n{frame_line(frame)}" if frame is not None and fmt is OutputFormat.table else title


def warn_frame(frame: FrameJson | None) -> None:
    """Topics left out, chosen topics nobody labels: said on stderr, whatever the format."""
    for warning in frame_warnings(frame) if frame is not None else []:
        stderr_console().print(f"warning: {warning}", markup=False, highlight=False)
